// The JSON API of jsprof view (internal/server).

// ApiError carries the server's message.
export class ApiError extends Error {}

// get fetches /api/<path> with params (an object, or [key, value] pairs)
// and returns the decoded JSON; a non-2xx answer throws an ApiError with
// the server's message.
export async function get(path, params = {}, signal) {
  const q = new URLSearchParams();
  const pairs = Array.isArray(params) ? params : Object.entries(params);
  for (const [k, v] of pairs) if (v !== undefined && v !== null && v !== '') q.append(k, String(v));
  const res = await fetch(`/api/${path}?${q}`, { signal, credentials: 'same-origin' });
  let body = null;
  try { body = await res.json(); } catch { /* not JSON */ }
  if (!res.ok) {
    const msg = body && (body.error || body.state) ? (body.error || `the profile is ${body.state}`) : `HTTP ${res.status}`;
    throw new ApiError(`${path}: ${msg}`);
  }
  return body;
}
