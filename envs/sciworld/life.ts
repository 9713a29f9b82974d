/**
 * Living things and their life stages. Plants grow seed → seedling → adult → reproducing while
 * they sit in soil with water, and die after going too long without water. Animals hatch and age
 * egg → baby → juvenile → adult; each species has a lifespan in years (the Lifespan family's fact).
 * An episode lasts a few dozen iterations, far less than any lifespan, so adults never die here.
 */
import { article, type LifeStage, type Thing } from './thing.ts';
import type { World } from './world.ts';

/** Iterations a watered plant spends in each stage before the next. */
export const PLANT_STAGE_TICKS = 10;
/** Iterations without water after which a plant dies. */
export const PLANT_THIRST_LIMIT = 60;
const PLANT_NEXT: Partial<Record<LifeStage, LifeStage>> = { seed: 'seedling', seedling: 'adult', adult: 'reproducing' };
const ANIMAL_NEXT: Partial<Record<LifeStage, { next: LifeStage; at: number }>> = {
  egg: { next: 'baby', at: 20 },
  baby: { next: 'juvenile', at: 120 },
  juvenile: { next: 'adult', at: 240 },
};

/** Lifespans in years (typical maximum recorded in captivity or the wild, rounded). */
export const LIFESPANS: Readonly<Record<string, number>> = {
  'giant tortoise': 150,
  'bowhead whale': 200,
  elephant: 70,
  parrot: 60,
  crocodile: 70,
  chimpanzee: 50,
  horse: 30,
  bear: 25,
  wolf: 14,
  beaver: 12,
  rabbit: 9,
  frog: 10,
  chipmunk: 3,
  hamster: 2,
  mouse: 2,
  'dragonfly': 0.5,
  'mayfly': 0.003,
  'butterfly': 0.08,
  'bee': 0.1,
};

export function seedName(species: string): string {
  return `${species.replace(/ (tree|plant)$/, '')} seed`;
}

export function makePlant(world: World, species: string, parent: Thing, stage: LifeStage = 'seed'): Thing {
  const plant = world.add(species, 'plant', parent);
  plant.life = { species, stage, age: 0, lifespanYears: 0, thirst: 0 };
  nameLiving(plant);
  return plant;
}

export function makeAnimal(world: World, species: string, parent: Thing, stage: LifeStage = 'adult'): Thing {
  const animal = world.add(species, 'animal', parent);
  animal.life = { species, stage, age: stage === 'adult' ? 240 : 0, lifespanYears: LIFESPANS[species] ?? 10, thirst: 0 };
  nameLiving(animal);
  return animal;
}

/** Names follow the stage: "apple seed" → "apple tree"; animals keep their species name. */
function nameLiving(thing: Thing): void {
  const life = thing.life!;
  if (thing.kind === 'plant') {
    thing.name = life.stage === 'seed' ? seedName(life.species) : life.species;
    thing.aliases = life.stage === 'seed' ? ['seed'] : ['plant', `${life.stage} ${life.species}`];
  } else {
    thing.aliases = [`${life.stage} ${life.species}`];
  }
}

export function describeLiving(thing: Thing): string {
  const life = thing.life!;
  if (thing.kind === 'plant') {
    if (life.stage === 'seed') return article(thing.name);
    return `${article(thing.name)} in the ${life.stage} stage`;
  }
  if (life.stage === 'egg') return `${article(life.species)} egg`;
  return `${article(life.stage === 'dead' ? 'dead' : life.stage)} ${life.species}`;
}

function watered(plant: Thing): { soil: boolean; water: boolean } {
  const pot = plant.parent;
  const siblings = pot?.children ?? [];
  return {
    soil: siblings.some((s) => s.name === 'soil'),
    water: siblings.some((s) => s.material?.key === 'water' && s.name === 'water'),
  };
}

export function tickLife(world: World): void {
  for (const thing of world.live()) {
    const life = thing.life;
    if (!life || life.stage === 'dead') continue;
    life.age += 1;
    if (thing.kind === 'plant') {
      const { soil, water } = watered(thing);
      life.thirst = water ? 0 : life.thirst + 1;
      if (life.thirst > PLANT_THIRST_LIMIT && life.stage !== 'seed') life.stage = 'dead';
      else if (soil && water && life.age % PLANT_STAGE_TICKS === 0) life.stage = PLANT_NEXT[life.stage] ?? life.stage;
    } else {
      const step = ANIMAL_NEXT[life.stage];
      if (step && life.age >= step.at) life.stage = step.next;
    }
    nameLiving(thing);
  }
}
