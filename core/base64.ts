/** Standard base64 (RFC 4648 section 4, padded) of bytes, with atob/btoa: Node 16+ and browsers. */
export function toBase64(bytes: Uint8Array): string {
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary);
}

/** The bytes of standard padded base64; throws on anything else (atob alone accepts sloppy input). */
export function fromBase64(text: string): Uint8Array {
  if (!/^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/.test(text)) {
    throw new SyntaxError("not standard padded base64");
  }
  return Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
}
