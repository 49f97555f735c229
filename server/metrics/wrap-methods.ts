// biome-ignore lint/suspicious/noExplicitAny: wraps methods of any signature
type AnyMethod = (...args: any[]) => any;

/**
 * A view of `target` whose methods `wrap` may replace (returning undefined keeps a method as it
 * is). Methods run on the target itself, so classes with private state work unchanged. A method is
 * wrapped on first use and again only if the target's method is replaced (a test's spy).
 * Everything else reads through.
 */
export function wrapMethods<T extends object>(
  target: T,
  wrap: (name: string, method: AnyMethod) => AnyMethod | undefined,
): T {
  const wrapped = new Map<string, { original: AnyMethod; method: AnyMethod }>();
  return new Proxy(target, {
    get(obj, prop) {
      const value = Reflect.get(obj, prop, obj);
      if (typeof value !== "function" || typeof prop !== "string") return value;
      const known = wrapped.get(prop);
      if (known?.original === value) return known.method;
      const bound = (value as AnyMethod).bind(obj);
      const method = wrap(prop, bound) ?? bound;
      wrapped.set(prop, { original: value as AnyMethod, method });
      return method;
    },
  });
}
