import type { Store } from "../store/store.js";
import { type Metrics, secondsSince } from "./metrics.js";
import { wrapMethods } from "./wrap-methods.js";

// biome-ignore lint/suspicious/noExplicitAny: any function
type AnyFunction = (...args: any[]) => unknown;
/** The Store's repositories: its object members, apart from its clock, availability and methods. */
type Repository = Exclude<
  {
    [K in keyof Store]-?: Store[K] extends AnyFunction ? never : Store[K] extends object ? K : never;
  }[keyof Store],
  "clock" | "availability"
>;

// Every repository of the Store interface: the Record type makes a new one impossible to forget.
const repositories: Record<Repository, true> = {
  auth: true,
  stamps: true,
  identities: true,
  vaults: true,
  idempotency: true,
  proofs: true,
  log: true,
  logTiles: true,
  stampLog: true,
  stampLogTiles: true,
  anchors: true,
  keyRing: true,
};

/**
 * The store with every asynchronous repository method timed into
 * `stampd_store_query_duration_seconds{repository, method}` (failures included), without a line
 * in either engine. Synchronous methods and the store's own (migrate, ping, close) pass through.
 */
export function timeStoreQueries(store: Store, metrics: Metrics): Store {
  const timed = new Map<string, { original: object; repo: object }>();
  return new Proxy(store, {
    get(obj, prop) {
      const value = Reflect.get(obj, prop, obj);
      if (typeof prop !== "string" || !Object.hasOwn(repositories, prop)) {
        return typeof value === "function" ? value.bind(obj) : value;
      }
      const known = timed.get(prop);
      if (known && known.original === value) return known.repo;
      const repo = timeRepository(prop, value as object, metrics);
      timed.set(prop, { original: value as object, repo });
      return repo;
    },
  });
}

function timeRepository<R extends object>(repository: string, repo: R, metrics: Metrics): R {
  return wrapMethods(repo, (method, call) => {
    const observe = metrics.storeQueryDuration.labels({ repository, method });
    return (...args) => {
      const start = performance.now();
      const result = call(...args);
      if (!(result instanceof Promise)) return result;
      // Observed on a side branch: the caller awaits the call's own promise, one step sooner.
      const done = () => observe.observe(secondsSince(start));
      result.then(done, done);
      return result;
    };
  });
}
