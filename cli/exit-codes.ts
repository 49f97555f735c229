/** Exit codes: 0 success, 1 a failure (the server refused, a check failed), 2 a usage error, 3 see below. */
export const EXIT_FAILURE = 1;
export const EXIT_USAGE = 2;
/**
 * `stampd verify`: every check holds, but only against the key the stamp itself embeds, which
 * anyone can make; no pinned key, key ring or named service vouches for it (issue #35).
 */
export const EXIT_SIGNER_UNKNOWN = 3;
