/**
 * `T` whose optional properties also take `undefined`. The spec's generated types declare
 * `limit?: number`, which code compiled with `exactOptionalPropertyTypes` cannot fill from a value
 * that may be missing (`{ limit: flags.limit }`); the SDK treats an `undefined` option as an absent
 * one everywhere (query parameters and form fields left out, defaults applied).
 */
export type AcceptUndefined<T> = {
  [K in keyof T]: Record<never, never> extends Pick<T, K> ? T[K] | undefined : T[K];
};
