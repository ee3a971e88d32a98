// The wasm core behind one promise per page: created on first use, shared
// by every <vram-calculator> on the page. `factory` is the Emscripten
// module factory (createVramModule).

export class CoreError extends Error {
  constructor(error) {
    super(error.message);
    this.code = error.code;
    this.field = error.field;
  }
}

/** Wraps the raw string binding as calls on plain objects. */
export function wrap(module) {
  const call = (method, request) => {
    const result = JSON.parse(module.call(method, JSON.stringify(request ?? {})));
    if (result && result.error) throw new CoreError(result.error);
    return result;
  };
  return {
    call,
    estimate: (request) => call('estimate', request),
    presets: () => call('presets', {}),
    grid: (request) => call('grid', request),
    devices: (request) => call('devices', request),
    fleet: (request) => call('fleet', request),
  };
}

/**
 * Base64 to bytes: the browser's own decoder where it has one
 * (Uint8Array.fromBase64), else atob.
 */
export function decodeBase64(text) {
  if (typeof Uint8Array.fromBase64 === 'function') return Uint8Array.fromBase64(text);
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

let pending = null;

export function loadCore(factory) {
  if (!pending) pending = factory().then(wrap);
  return pending;
}
