/**
 * The Python a live test runs (peft, transformers, TRL): $ACTORGYM_PYTHON alone when it is set, so
 * a CI misconfiguration is not papered over, else /tmp/hfvenv/bin/python, else python3 — the first
 * that imports every module asked for, or why none does (the test prints it and skips).
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

export interface FoundPython {
  readonly python?: string;
  readonly reason: string;
}

export function findPython(modules: readonly string[]): FoundPython {
  const chosen = process.env['ACTORGYM_PYTHON'];
  const candidates = chosen !== undefined && chosen !== '' ? [chosen] : ['/tmp/hfvenv/bin/python', 'python3'];
  const tried: string[] = [];
  for (const python of candidates) {
    if (python.includes('/') && !existsSync(python)) {
      tried.push(`${python} (not found)`);
      continue;
    }
    const probe = spawnSync(python, ['-c', `import ${modules.join(', ')}`], { encoding: 'utf8', timeout: 120_000 });
    if (probe.status === 0) return { python, reason: '' };
    tried.push(`${python} (${(probe.error?.message ?? probe.stderr.trim().split('\n').pop() ?? 'failed').slice(0, 120)})`);
  }
  return { reason: `no Python that imports ${modules.join(', ')}: tried ${tried.join('; ')}. Set ACTORGYM_PYTHON to a venv python that has them.` };
}
