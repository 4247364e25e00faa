// The page's one door to the device: every call carries the token from this
// origin's storage in the X-Device-Token header (never in a URL), errors come
// back typed with the device's own sentence, and downloads are fetched as
// Blobs with the header token so no link ever carries a credential.

const TOKEN_KEY = 'deskToken';

export const tokens = {
  get(): string | null {
    try {
      return localStorage.getItem(TOKEN_KEY);
    } catch {
      return null;
    }
  },
  set(token: string): void {
    localStorage.setItem(TOKEN_KEY, token);
  },
  clear(): void {
    try {
      localStorage.removeItem(TOKEN_KEY);
    } catch {
      // storage unavailable: nothing was kept
    }
  },
};

export interface ApiResult<T = Record<string, unknown>> {
  ok: boolean;
  /** HTTP status; 0 when the device did not answer. */
  status: number;
  data: T;
  /** The device's stable error code ('' on success). */
  error: string;
  /** A sentence for the person ('' on success). */
  message: string;
}

export interface CallOptions {
  method?: string;
  /** Form fields (sent urlencoded) or a FormData (multipart, for uploads). */
  form?: Record<string, string> | FormData;
  /** A JSON body. */
  json?: unknown;
  /** Send no token (sign-in exchange, checking a legacy link's token). */
  token?: string | null;
}

let onSignedOut: (why: string) => void = () => {};
/** What to do when the device says the stored token is no longer valid. */
export function whenSignedOut(fn: (why: string) => void): void {
  onSignedOut = fn;
}

export async function call<T = Record<string, unknown>>(path: string, options: CallOptions = {}): Promise<ApiResult<T>> {
  const token = options.token === undefined ? tokens.get() : options.token;
  const headers: Record<string, string> = {};
  if (token) headers['X-Device-Token'] = token;
  let body: BodyInit | undefined;
  if (options.form instanceof FormData) body = options.form;
  else if (options.form) body = new URLSearchParams(options.form);
  else if (options.json !== undefined) {
    body = JSON.stringify(options.json);
    headers['Content-Type'] = 'application/json';
  }
  let res: Response;
  try {
    // Manual redirects: while Wi-Fi is not set up the device redirects unknown
    // paths to its setup page, which must read as "no such route" here.
    res = await fetch(path, { method: options.method ?? (body ? 'POST' : 'GET'), headers, body, redirect: 'manual', cache: 'no-store' });
  } catch {
    return { ok: false, status: 0, data: {} as T, error: 'offline', message: 'The device did not answer. Is it switched on and on this network?' };
  }
  if (res.type === 'opaqueredirect') return { ok: false, status: 404, data: {} as T, error: 'not-found', message: 'Not on this firmware.' };
  let data: unknown = {};
  const type = res.headers.get('content-type') ?? '';
  try {
    data = type.includes('application/json') ? await res.json() : { text: await res.text() };
  } catch {
    data = {};
  }
  const obj = (data && typeof data === 'object' ? data : {}) as Record<string, unknown>;
  if (res.ok) return { ok: true, status: res.status, data: data as T, error: '', message: '' };
  const error = typeof obj['error'] === 'string' ? obj['error'] : `http-${res.status}`;
  const message = typeof obj['message'] === 'string' ? obj['message'] : `The device answered ${res.status}.`;
  if (res.status === 401 && token && options.token === undefined) onSignedOut('The device no longer accepts this browser\'s sign-in (the token was rotated or the device was reset). Sign in again.');
  return { ok: false, status: res.status, data: data as T, error, message };
}

/** GET a JSON route; null data when the route is not on this firmware (404). */
export function get<T = Record<string, unknown>>(path: string): Promise<ApiResult<T>> {
  return call<T>(path);
}

export function post<T = Record<string, unknown>>(path: string, form: Record<string, string> | FormData = {}): Promise<ApiResult<T>> {
  return call<T>(path, { method: 'POST', form });
}

/** Whether a failed call means the subsystem is not built on this firmware. */
export function missing(r: ApiResult<unknown>): boolean {
  return r.status === 404 && (r.error === 'not-found' || r.error === 'http-404');
}

/** Downloads a gated resource as a Blob (header token) and saves it under a name. */
export async function download(path: string, filename: string): Promise<ApiResult<null>> {
  const token = tokens.get();
  let res: Response;
  try {
    res = await fetch(path, { headers: token ? { 'X-Device-Token': token } : {}, redirect: 'manual', cache: 'no-store' });
  } catch {
    return { ok: false, status: 0, data: null, error: 'offline', message: 'The device did not answer.' };
  }
  if (!res.ok) {
    let message = `The device answered ${res.status}.`;
    let error = `http-${res.status}`;
    try {
      const j = (await res.json()) as { error?: string; message?: string };
      message = j.message ?? message;
      error = j.error ?? error;
    } catch {
      // not JSON
    }
    if (res.status === 401) onSignedOut('The device no longer accepts this browser\'s sign-in. Sign in again.');
    return { ok: false, status: res.status, data: null, error, message };
  }
  const blob = await res.blob();
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = filename;
  a.hidden = true;
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
  return { ok: true, status: res.status, data: null, error: '', message: '' };
}
