// The Origin rule of /mcp (docs/decisions.md, "The Origin of /mcp
// requests"). MCP's transports ask a server to answer 403 to an invalid
// Origin, against DNS rebinding; browsers send Origin on every POST, and
// other MCP clients send none. So a request without Origin is served as
// before, and one with an Origin is served only when that origin names the
// device itself: its host is the host the request was sent to (Host), and
// that host is an IP address, localhost or a .local name, which a stranger's
// DNS cannot point at the device. A rebinding page (Host and Origin
// evil.example) and any other site are refused.
//
// Only /mcp: the device's web page never calls it, and every other route
// keeps the interface spec's rule (Authentication 3) that no decision uses
// Host or Origin, so the page works under any name its owner reaches it by.

import { stringify } from '../util/json.ts';

// Regular expressions are module constants: XS compiles a literal each time it is evaluated.
const ORIGIN = /^https?:\/\/([^/?#@\s]+)$/i;
const IPV4 = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;
const IPV6 = /^\[[0-9a-f:.]+\]$/i;
const PORT = /:\d{1,5}$/;
const LOCAL_NAME = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.local\.?$/i;

/** The host part of host[:port] (brackets kept for IPv6). */
function hostOf(hostPort: string): string {
  return IPV6.test(hostPort) ? hostPort : hostPort.replace(PORT, '');
}

/** A host a DNS rebinding attack cannot use: an address, localhost, or a multicast-DNS name. */
export function namesDevice(host: string): boolean {
  const h = host.toLowerCase();
  return IPV4.test(h) || IPV6.test(h) || h === 'localhost' || LOCAL_NAME.test(h);
}

/** null when the request may be served; otherwise why not. */
export function originRefusal(origin: string | undefined, host: string | undefined): string | null {
  if (origin === undefined) return null;
  const m = ORIGIN.exec(origin.trim());
  if (!m) return `Origin ${stringify(origin.slice(0, 80))} is not this device`;
  const hostPort = m[1]!.toLowerCase();
  if (host === undefined || hostPort !== host.trim().toLowerCase()) return `Origin ${origin.slice(0, 80)} is another site than the one addressed`;
  if (!namesDevice(hostOf(hostPort))) return `Origin ${origin.slice(0, 80)} is a name this device does not answer to`;
  return null;
}
