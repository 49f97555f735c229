"""Reads a .ots file with Debian's python3-opentimestamps, as `ots verify` would, and prints JSON:
the file digest, every message the library computed from it (each operation is evaluated while
deserializing), and every attestation with the message it commits."""
import json
import sys

from opentimestamps.core.notary import BitcoinBlockHeaderAttestation, PendingAttestation
from opentimestamps.core.serialize import BytesDeserializationContext
from opentimestamps.core.timestamp import DetachedTimestampFile

with open(sys.argv[1], "rb") as f:
    detached = DetachedTimestampFile.deserialize(BytesDeserializationContext(f.read()))


def messages(timestamp):
    yield timestamp.msg.hex()
    for _op, following in timestamp.ops.items():
        yield from messages(following)


def described(attestation):
    if isinstance(attestation, PendingAttestation):
        return {"pending": attestation.uri}
    if isinstance(attestation, BitcoinBlockHeaderAttestation):
        return {"bitcoin": attestation.height}
    return {"other": type(attestation).__name__}


print(json.dumps({
    "hash_op": detached.file_hash_op.TAG_NAME,
    "file_digest": detached.file_digest.hex(),
    "messages": list(messages(detached.timestamp)),
    "attestations": [
        {**described(a), "commitment": msg.hex()} for msg, a in detached.timestamp.all_attestations()
    ],
}))
