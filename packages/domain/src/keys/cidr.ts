import ipaddr from 'ipaddr.js';

/** Only plain notations: four-part decimal IPv4 (no octal or short forms) or IPv6. */
function strictAddress(value: string): boolean {
  return value.includes(':') ? ipaddr.IPv6.isValid(value) : ipaddr.IPv4.isValidFourPartDecimal(value);
}

/** Normalizes an address (IPv4-mapped IPv6 becomes IPv4); null when it is not an address. */
export function parseIp(value: string): ipaddr.IPv4 | ipaddr.IPv6 | null {
  if (!strictAddress(value)) return null;
  const addr = ipaddr.parse(value);
  if (addr.kind() === 'ipv6' && (addr as ipaddr.IPv6).isIPv4MappedAddress()) {
    return (addr as ipaddr.IPv6).toIPv4Address();
  }
  return addr;
}

function parseRange(rule: string): [ipaddr.IPv4 | ipaddr.IPv6, number] | null {
  const slash = rule.indexOf('/');
  if (slash < 0 || !strictAddress(rule.slice(0, slash)) || !/^\d{1,3}$/.test(rule.slice(slash + 1))) return null;
  try {
    const [range, bits] = ipaddr.parseCIDR(rule);
    if (range.kind() === 'ipv6' && (range as ipaddr.IPv6).isIPv4MappedAddress() && bits >= 96) {
      return [(range as ipaddr.IPv6).toIPv4Address(), bits - 96];
    }
    return [range, bits];
  } catch {
    return null;
  }
}

/** True when the entry is a single address or a CIDR range, IPv4 or IPv6. */
export function isValidIpRule(rule: string): boolean {
  return rule.includes('/') ? parseRange(rule) !== null : strictAddress(rule);
}

/** True when `ip` matches any of the addresses or ranges in `rules`; malformed rules match nothing. */
export function ipAllowed(ip: string | undefined, rules: readonly string[]): boolean {
  if (!ip) return false;
  const addr = parseIp(ip);
  if (!addr) return false;
  return rules.some((rule) => {
    if (rule.includes('/')) {
      const range = parseRange(rule);
      return range !== null && addr.kind() === range[0].kind() && addr.match(range[0], range[1]);
    }
    const single = parseIp(rule);
    return single !== null && single.kind() === addr.kind() && single.toNormalizedString() === addr.toNormalizedString();
  });
}
