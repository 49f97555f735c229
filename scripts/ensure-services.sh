#!/usr/bin/env bash
# Makes sure the local PostgreSQL (127.0.0.1:5432, database test) and Redis (127.0.0.1:6379) that the
# integration tests use are running; starts them with the machine's standard commands if not.
set -euo pipefail

pg_up() { pg_isready -h 127.0.0.1 -p 5432 -q 2>/dev/null; }
redis_up() { redis-cli -h 127.0.0.1 -p 6379 ping 2>/dev/null | grep -q PONG; }

if command -v pg_ctlcluster >/dev/null && ! pg_up; then
  pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql | head -n1)" main start || true
fi
if command -v redis-server >/dev/null && ! redis_up; then
  redis-server --daemonize yes --bind 127.0.0.1 -::1 --port 6379 --save "" --appendonly no \
    --dir /var/lib/redis --logfile /var/log/redis/ci.log || true
fi
for _ in $(seq 1 30); do
  if pg_up && redis_up; then echo "PostgreSQL and Redis are up"; exit 0; fi
  sleep 1
done
pg_up || echo "PostgreSQL is not reachable on 127.0.0.1:5432" >&2
redis_up || echo "Redis is not reachable on 127.0.0.1:6379" >&2
exit 1
