/**
 * Link-local and cloud-metadata addresses (issue 8 item 6). A fetch to one of them from a
 * developer's machine or a CI runner can hand out the instance's cloud credentials
 * (169.254.169.254 answers with IAM keys on AWS, GCP, Azure), so webfetch refuses them unless a
 * rule names the URL. Pure: the host resolves names; this only classifies what it got.
 */

/** Names that only ever point at a metadata service. */
const METADATA_NAMES: ReadonlySet<string> = new Set(['metadata.google.internal', 'metadata.goog']);

/** Alibaba Cloud's metadata service; every other provider uses a link-local address. */
const ALIBABA_METADATA = [100, 100, 100, 200] as const;

/** The four octets of a dotted IPv4 address, or undefined. */
function ipv4Octets(text: string): number[] | undefined {
  const parts = text.split('.');
  if (parts.length !== 4 || !parts.every((part) => /^\d{1,3}$/.test(part))) return undefined;
  const octets = parts.map(Number);
  return octets.every((octet) => octet <= 255) ? octets : undefined;
}

/** The eight 16-bit groups of an IPv6 address (an embedded IPv4 tail included), or undefined. */
function ipv6Groups(text: string): number[] | undefined {
  let body = text.toLowerCase().replace(/%.*$/, '');
  const lastColon = body.lastIndexOf(':');
  if (lastColon === -1) return undefined;
  const v4 = ipv4Octets(body.slice(lastColon + 1));
  if (v4) {
    // Written as the two groups it stands for, so one parser reads both forms.
    const [a = 0, b = 0, c = 0, d = 0] = v4;
    body = `${body.slice(0, lastColon + 1)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const halves = body.split('::');
  if (halves.length > 2) return undefined;
  const parse = (half: string | undefined): number[] | undefined => {
    if (half === undefined || half === '') return [];
    const groups = half.split(':');
    return groups.every((group) => /^[0-9a-f]{1,4}$/.test(group)) ? groups.map((group) => parseInt(group, 16)) : undefined;
  };
  const head = parse(halves[0]);
  const rest = parse(halves[1]);
  if (!head || !rest) return undefined;
  const given = head.length + rest.length;
  if (halves.length === 1 ? given !== 8 : given > 7) return undefined;
  return [...head, ...new Array<number>(8 - given).fill(0), ...rest];
}

function isMetadataIpv4(octets: readonly number[]): boolean {
  if (octets[0] === 169 && octets[1] === 254) return true;
  return ALIBABA_METADATA.every((octet, index) => octets[index] === octet);
}

/** True for 169.254.0.0/16, 100.100.100.200, fe80::/10, fd00:ec2::254, and those IPv4 addresses mapped into IPv6. */
export function isMetadataAddress(address: string): boolean {
  const v4 = ipv4Octets(address);
  if (v4) return isMetadataIpv4(v4);
  const groups = ipv6Groups(address);
  if (!groups) return false;
  const [g0 = 0, g1 = 0, g2 = 0, g3 = 0, g4 = 0, g5 = 0, g6 = 0, g7 = 0] = groups;
  if ((g0 & 0xffc0) === 0xfe80) return true;
  if (g0 === 0xfd00 && g1 === 0x0ec2 && g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0 && g6 === 0 && g7 === 0x254) return true;
  const embedded = [g6 >> 8, g6 & 0xff, g7 >> 8, g7 & 0xff];
  // ::ffff:a.b.c.d (IPv4-mapped) and 64:ff9b::a.b.c.d (NAT64) reach the IPv4 address.
  const mapped = g0 === 0 && g1 === 0 && g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0xffff;
  const nat64 = g0 === 0x64 && g1 === 0xff9b && g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0;
  return (mapped || nat64) && isMetadataIpv4(embedded);
}

/** Whether a URL's hostname (brackets around IPv6 allowed) is an IP literal rather than a name to resolve. */
export function isIpLiteral(hostname: string): boolean {
  const bare = hostname.replace(/^\[(.*)\]$/, '$1');
  return ipv4Octets(bare) !== undefined || ipv6Groups(bare) !== undefined;
}

/** True when the hostname itself, before any resolution, is a metadata name or address. */
export function isMetadataHost(hostname: string): boolean {
  const bare = hostname
    .replace(/^\[(.*)\]$/, '$1')
    .toLowerCase()
    .replace(/\.$/, '');
  return METADATA_NAMES.has(bare) || isMetadataAddress(bare);
}
