/**
 * `--remote agentgym+http://host:port[/prefix][?test=A-B,C&train=D-E]`: AgentGym HTTP env
 * servers. The scheme says which protocol; the rest is the server's base URL (a `/token/T`
 * prefix reaches an actorgym server that has a token). `test=`/`train=` choose the `data_idx`
 * of each split (ranges and single integers, comma-separated), for servers whose numbering
 * actorgym does not know (AgentGym's SciWorld and WebShop).
 */
import { EnvError } from '../../envs/contract.ts';

export const AGENTGYM_SCHEME = 'agentgym+http://';

/** The servers of an `agentgym+http://` remote and the data_idx its URLs chose per split. */
export interface AgentGymRemote {
  /** Each server's `http://` base URL, query removed. */
  readonly urls: readonly string[];
  readonly test?: readonly number[];
  readonly train?: readonly number[];
}

/** `0-3,7` → [0, 1, 2, 3, 7]; `what` names the parameter in errors. */
export function parseIndexList(text: string, what: string): number[] {
  const out: number[] = [];
  for (const part of text.split(',').map((p) => p.trim()).filter((p) => p !== '')) {
    const match = /^(\d+)(?:-(\d+))?$/.exec(part);
    if (!match) throw new EnvError('PROTOCOL_ERROR', `--remote: ${what} takes data_idx ranges like 0-199,250, got "${part}"`);
    const from = Number(match[1]);
    const to = match[2] === undefined ? from : Number(match[2]);
    if (to < from) throw new EnvError('PROTOCOL_ERROR', `--remote: ${what} range "${part}" runs backwards`);
    if (to - from > 1_000_000) throw new EnvError('PROTOCOL_ERROR', `--remote: ${what} range "${part}" is longer than 1,000,000`);
    for (let i = from; i <= to; i++) out.push(i);
  }
  return out;
}

function splitOf(query: URLSearchParams, name: 'test' | 'train'): number[] | undefined {
  const raw = query.get(name);
  return raw === null ? undefined : parseIndexList(raw, `?${name}=`);
}

/** The servers and splits of `agentgym+http://` URLs (already split at commas). */
export function parseAgentGymRemote(urls: readonly string[]): AgentGymRemote {
  let test: number[] | undefined;
  let train: number[] | undefined;
  const bases: string[] = [];
  for (const url of urls) {
    if (!url.startsWith(AGENTGYM_SCHEME)) throw new EnvError('PROTOCOL_ERROR', `--remote mixes kinds of server: "${url}" is not agentgym+http:// like the others`);
    let parsed: URL;
    try {
      parsed = new URL(`http://${url.slice(AGENTGYM_SCHEME.length)}`);
    } catch {
      throw new EnvError('PROTOCOL_ERROR', `--remote: "${url}" is not a URL`);
    }
    const [urlTest, urlTrain] = [splitOf(parsed.searchParams, 'test'), splitOf(parsed.searchParams, 'train')];
    const unknown = [...parsed.searchParams.keys()].find((key) => key !== 'test' && key !== 'train');
    if (unknown !== undefined) throw new EnvError('PROTOCOL_ERROR', `--remote: unknown parameter "${unknown}" in ${url} (known: test, train)`);
    if ((test && urlTest && test.join() !== urlTest.join()) || (train && urlTrain && train.join() !== urlTrain.join())) {
      throw new EnvError('PROTOCOL_ERROR', '--remote: the URLs of one pool give different ?test=/?train= splits');
    }
    test ??= urlTest;
    train ??= urlTrain;
    bases.push(`http://${parsed.host}${parsed.pathname.replace(/\/+$/, '')}`);
  }
  return { urls: bases, ...(test ? { test } : {}), ...(train ? { train } : {}) };
}
