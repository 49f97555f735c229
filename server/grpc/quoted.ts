/** The most characters of a caller's text a status message repeats. */
const MAX_ECHO = 64;

/**
 * Caller text as a status message quotes it: JSON-quoted and cut after 64 characters, with its
 * length when cut. The message travels in the `grpc-message` trailer, and HTTP/2 peers refuse
 * header blocks over their SETTINGS_MAX_HEADER_LIST_SIZE (16 KiB in many clients): echoing a 70 KB
 * service name whole made the client see a stream reset instead of the status.
 */
export function quoted(text: string): string {
  const chars = [...text];
  if (chars.length <= MAX_ECHO) return JSON.stringify(text);
  return `${JSON.stringify(chars.slice(0, MAX_ECHO).join(""))}… (${chars.length} characters)`;
}
