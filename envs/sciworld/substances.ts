/**
 * Materials: what objects are made of and what substances are. Melting and boiling points (°C)
 * decide the state of matter; `conductive` decides whether current flows through an object.
 * Values are textbook figures, rounded (chocolate and wax vary by recipe; ours are fixed).
 */
export type Phase = 'solid' | 'liquid' | 'gas';

export interface Material {
  readonly key: string;
  readonly meltingPoint: number;
  readonly boilingPoint: number;
  readonly conductive: boolean;
  /** Names per state; a missing name defaults to "liquid X" / "gaseous X" / "X". */
  readonly names?: Partial<Record<Phase, string>>;
}

const m = (key: string, meltingPoint: number, boilingPoint: number, conductive: boolean, names?: Partial<Record<Phase, string>>): Material =>
  names ? { key, meltingPoint, boilingPoint, conductive, names } : { key, meltingPoint, boilingPoint, conductive };

/** A substance that is liquid at room temperature: "orange juice", "solid orange juice". */
export const liquidAtRoom = (key: string, meltingPoint: number, boilingPoint: number, conductive = false): Material =>
  m(key, meltingPoint, boilingPoint, conductive, { solid: `solid ${key}`, liquid: key, gas: `gaseous ${key}` });

/** Substances that appear as `a substance called …` and change state. */
export const SUBSTANCES: Readonly<Record<string, Material>> = {
  water: m('water', 0, 100, false, { solid: 'ice', liquid: 'water', gas: 'steam' }),
  chocolate: m('chocolate', 35, 1000, false),
  butter: m('butter', 32, 1000, false),
  lead: m('lead', 327, 1749, true),
  tin: m('tin', 232, 2602, true),
  gallium: m('gallium', 30, 2400, true),
  'paraffin wax': m('paraffin wax', 58, 370, false),
  'palm oil': m('palm oil', 35, 300, false),
  'sodium chloride': m('sodium chloride', 801, 1465, false),
  sugar: m('sugar', 186, 1000, false),
  soap: m('soap', 60, 1000, false),
  'orange juice': liquidAtRoom('orange juice', -2, 100),
  'marshmallow': m('marshmallow', 100, 1000, false),
  'sodium bicarbonate': m('sodium bicarbonate', 50, 1000, false),
  'acetic acid': liquidAtRoom('acetic acid', 17, 118),
  'red paint': liquidAtRoom('red paint', -5, 101),
  'blue paint': liquidAtRoom('blue paint', -5, 101),
  'yellow paint': liquidAtRoom('yellow paint', -5, 101),
  soil: m('soil', 1500, 3000, false),
  air: m('air', -220, -194, false, { solid: 'solid air', liquid: 'liquid air', gas: 'air' }),
};

/** Materials of solid objects (forks, cups, wires); their phase changes are out of scope. */
export const OBJECT_MATERIALS: Readonly<Record<string, Material>> = {
  steel: m('steel', 1370, 2860, true),
  iron: m('iron', 1538, 2862, true),
  copper: m('copper', 1085, 2562, true),
  aluminum: m('aluminum', 660, 2470, true),
  brass: m('brass', 930, 1100, true),
  zinc: m('zinc', 420, 907, true),
  wood: m('wood', 1000, 2000, false),
  plastic: m('plastic', 160, 300, false),
  glass: m('glass', 1400, 2230, false),
  ceramic: m('ceramic', 1600, 3000, false),
  rubber: m('rubber', 180, 300, false),
  paper: m('paper', 230, 500, false),
  cotton: m('cotton', 250, 500, false),
  organic: m('organic', 1000, 2000, false),
  graphite: m('graphite', 3600, 4200, true),
};

/** Unknown substances of the Measure and Conductivity families ("unknown substance B"). */
export function unknownSubstance(letter: string, meltingPoint: number, conductive: boolean): Material {
  const name = `unknown substance ${letter}`;
  return m(name, meltingPoint, meltingPoint + 400, conductive, { solid: name, liquid: `liquid ${name}`, gas: `gaseous ${name}` });
}

export function phaseAt(material: Material, temperature: number): Phase {
  if (temperature >= material.boilingPoint) return 'gas';
  if (temperature >= material.meltingPoint) return 'liquid';
  return 'solid';
}

export function nameFor(material: Material, phase: Phase): string {
  const given = material.names?.[phase];
  if (given) return given;
  if (phase === 'solid') return material.key;
  return phase === 'liquid' ? `liquid ${material.key}` : `gaseous ${material.key}`;
}
