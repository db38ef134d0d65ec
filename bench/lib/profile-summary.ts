/** Reads a `.cpuprofile` (V8's format): self time per function and per package or file, largest first. */

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

export function summarizeProfile(text: string, top = 30): string {
  const profile = JSON.parse(text) as Profile;
  const self = new Map<number, number>();
  profile.samples.forEach((id, i) => self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));
  const idle = profile.nodes
    .filter((n) => n.callFrame.functionName === '(idle)')
    .reduce((s, n) => s + (self.get(n.id) ?? 0), 0);
  const total = [...self.values()].reduce((s, v) => s + v, 0) - idle;

  const byFunction = new Map<string, number>();
  const byFile = new Map<string, number>();
  const add = (map: Map<string, number>, key: string, t: number) => map.set(key, (map.get(key) ?? 0) + t);
  for (const node of profile.nodes) {
    const t = self.get(node.id) ?? 0;
    const { functionName, url, lineNumber } = node.callFrame;
    if (t === 0 || functionName === '(idle)') continue;
    const where = url.replace(/^file:\/\/.*?\/(node_modules|dist)\//, '$1/');
    add(byFunction, `${functionName || '(anonymous)'}  ${where}${url ? `:${lineNumber + 1}` : ''}`, t);
    const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url)?.[1];
    add(
      byFile,
      pkg ??
        (url.includes('/dist/') ? where : url.startsWith('node:') ? url.split('/')[0]! : functionName || '(native)'),
      t,
    );
  }
  const list = (title: string, map: Map<string, number>) =>
    [
      `\n${title}`,
      ...[...map]
        .sort((x, y) => y[1] - x[1])
        .slice(0, top)
        .map(([k, v]) => `${((v / total) * 100).toFixed(1).padStart(5)} %  ${k}`),
    ].join('\n');
  const busy = `busy ${(total / 1e6).toFixed(1)} s, idle ${(idle / 1e6).toFixed(1)} s (shares below are of busy time)`;
  return [busy, list('Self time by function', byFunction), list('Self time by package or file', byFile)].join('\n');
}
