/** Exit codes: 0 success, 1 a failure (the server refused, a check failed), 2 a usage error. */
export const EXIT_FAILURE = 1;
export const EXIT_USAGE = 2;
