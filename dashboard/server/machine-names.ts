/**
 * The names this machine is reached by, which the dashboard's Host check accepts wherever it is
 * bound (issue 40, finding 5): its host name (`os.hostname()`), its fully qualified name when the
 * resolver knows one, and its interface addresses. None of them can be pointed elsewhere by a web
 * page, so answering to them keeps the DNS-rebinding guard whole.
 */
import { promises as dns } from 'node:dns';
import os from 'node:os';

/** How long the FQDN look-up may hold up the start (a resolver that does not answer). */
const LOOKUP_MS = 1_000;

export const bracket = (address: string): string => (address.includes(':') && !address.startsWith('[') ? `[${address}]` : address);

/** `os.hostname()` and every interface address (IPv6 in brackets, as a `Host` header has them). */
export function localNames(): string[] {
  const hostname = os.hostname();
  // A qualified host name's first label is the name the resolver's search list completes.
  const names = hostname.includes('.') ? [hostname, hostname.slice(0, hostname.indexOf('.'))] : [hostname];
  for (const entries of Object.values(os.networkInterfaces())) for (const entry of entries ?? []) names.push(bracket(entry.address));
  return names;
}

/**
 * The host name's fully qualified forms: what the resolver (hosts file, DNS) gives back for the
 * addresses the host name resolves to. Empty when it knows none or does not answer in time.
 */
export async function qualifiedNames(hostname = os.hostname()): Promise<string[]> {
  const lookup = async (): Promise<string[]> => {
    const addresses = await dns.lookup(hostname, { all: true });
    const names = await Promise.all(addresses.map(({ address }) => dns.lookupService(address, 0).then((s) => s.hostname, () => undefined)));
    return names.filter((name): name is string => name !== undefined && name.includes('.') && !/^[\d.]+$/.test(name));
  };
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<string[]>((resolve) => (timer = setTimeout(() => resolve([]), LOOKUP_MS)));
  try {
    return await Promise.race([lookup().catch(() => []), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** Every name of this machine: `localNames()` and, when resolvable, its FQDN. */
export async function machineNames(): Promise<string[]> {
  return [...new Set([...localNames(), ...(await qualifiedNames())])];
}
