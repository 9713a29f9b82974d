/** `EnvSpec.symmetries`: groups of words an env treats alike, and their validation. */

/** Groups of interchangeable words, e.g. `[['red', 'green', …]]`. */
export type SymmetryGroups = readonly (readonly string[])[];

/** Throws unless the groups are disjoint groups of two or more distinct single words. */
export function checkSymmetryGroups(groups: SymmetryGroups): void {
  const seen = new Set<string>();
  for (const group of groups) {
    if (group.length < 2) throw new Error(`symmetry group [${group.join(', ')}] needs two words or more`);
    for (const word of group) {
      if (!/^\w+$/.test(word)) throw new Error(`symmetry word "${word}" must be one word of letters, digits or _`);
      if (seen.has(word)) throw new Error(`symmetry word "${word}" appears twice`);
      seen.add(word);
    }
  }
}
