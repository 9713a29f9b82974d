/** SciWorld's processes: heat and changes of state, circuits, mixing, and life stages. */
import { describe, expect, it } from 'vitest';
import { mix } from '../../envs/sciworld/chemistry.ts';
import { addTerminals, updateCircuits } from '../../envs/sciworld/circuits.ts';
import { item, substance } from '../../envs/sciworld/house.ts';
import { makeAnimal, makePlant, PLANT_STAGE_TICKS, PLANT_THIRST_LIMIT } from '../../envs/sciworld/life.ts';
import { phaseOf } from '../../envs/sciworld/physics.ts';
import { find, house, type } from './sciworld-harness.ts';

describe('sciworld heat and changes of state', () => {
  it('melts lead on the stove and lets it solidify again', () => {
    const w = house('kitchen');
    const pot = item(w, 'steel bowl', find(w, 'stove'), 'steel', { container: true });
    const lead = substance(w, 'lead', pot);
    expect(type(w, 'look at steel bowl')).toBe('a steel bowl (containing a substance called lead)');
    type(w, 'activate stove');
    expect(phaseOf(lead)).toBe('solid');
    type(w, 'wait');
    expect(lead.name).toBe('lead');
    expect(type(w, 'use thermometer on lead')).toBe('the thermometer measures a temperature of 293 degrees celsius');
    type(w, 'wait');
    expect(lead.temperature).toBeGreaterThan(327);
    expect(lead.name).toBe('liquid lead');
    expect(type(w, 'look at steel bowl')).toBe('a steel bowl (containing a substance called liquid lead)');
    expect(type(w, 'use thermometer on liquid lead')).toMatch(/^the thermometer measures a temperature of \d+ degrees celsius$/);
    type(w, 'deactivate stove');
    for (let i = 0; i < 8; i++) type(w, 'wait');
    expect(lead.name).toBe('lead');
    expect(Math.round(lead.temperature)).toBe(20);
  });

  it('boils water into steam and freezes it into ice', () => {
    const w = house('kitchen');
    const stove = find(w, 'stove');
    const cup = item(w, 'steel bowl', stove, 'steel', { container: true });
    const water = substance(w, 'water', cup);
    expect(water.name).toBe('water');
    stove.device!.on = true;
    w.tick(4);
    expect(water.name).toBe('steam');
    expect(phaseOf(water)).toBe('gas');

    const freezer = find(w, 'freezer');
    const tray = item(w, 'tray', freezer, 'plastic', { container: true });
    const liquid = substance(w, 'water', tray, 20);
    w.tick(15);
    expect(liquid.temperature).toBeLessThan(0);
    expect(liquid.name).toBe('ice');
    // Out of the freezer, the ice melts at room temperature.
    w.place(tray, find(w, 'counter'));
    w.tick(20);
    expect(liquid.name).toBe('water');
  });

  it('fills containers from a running sink', () => {
    const w = house('kitchen');
    expect(type(w, 'move glass cup to sink')).toBe('You move the glass cup to the sink.');
    expect(type(w, 'look at glass cup')).toBe('a glass cup (containing nothing)');
    type(w, 'activate sink');
    expect(type(w, 'look at sink')).toBe('a sink, which is turned on. In the sink is: a glass cup (containing a substance called water).');
  });
});

describe('sciworld circuits', () => {
  function loop(material: string) {
    const w = house('workshop');
    const thing = item(w, `test ${material}`, w.agentRoom(), material, { terminals: true });
    type(w, 'connect battery anode to red wire terminal 1');
    type(w, 'connect red wire terminal 2 to light bulb anode');
    type(w, 'connect light bulb cathode to black wire terminal 1');
    type(w, `connect black wire terminal 2 to test ${material}`);
    return { w, thing, bulb: find(w, 'light bulb') };
  }

  it('lights the bulb only in a closed circuit through conductors', () => {
    const { w, bulb } = loop('steel');
    expect(bulb.device!.on).toBe(false);
    expect(type(w, 'connect test steel to battery cathode')).toBe('terminal 2 on test steel is now connected to cathode on battery');
    expect(bulb.device!.on).toBe(true);
    expect(type(w, 'look at light bulb')).toBe(
      'a light bulb, which is on. its anode is connected to: terminal 2 on red wire. its cathode is connected to: terminal 1 on black wire.',
    );
    expect(type(w, 'disconnect red wire')).toBe('red wire has been disconnected');
    expect(bulb.device!.on).toBe(false);
  });

  it('keeps the bulb dark through a nonconductive object', () => {
    const { w, bulb } = loop('plastic');
    type(w, 'connect test plastic to battery cathode');
    expect(bulb.device!.on).toBe(false);
    expect(type(w, 'look at light bulb')).toContain('a light bulb, which is off.');
  });

  it('does not light a short circuit, and disconnects what is moved', () => {
    const w = house('workshop');
    type(w, 'connect battery anode to battery cathode');
    updateCircuits(w);
    expect(find(w, 'light bulb').device!.on).toBe(false);
    const fork = addTerminals(item(w, 'fork', w.agentRoom(), 'steel'), 'part');
    type(w, 'disconnect battery');
    type(w, 'connect fork to battery anode');
    expect(type(w, 'pick up fork')).toBe('(disconnecting fork)You move the fork to the inventory.');
    expect(fork.terminals!.every((t) => t.connectedTo === null)).toBe(true);
  });
});

describe('sciworld mixing', () => {
  it('makes salt water from sodium chloride and water', () => {
    const w = house('kitchen');
    const cup = find(w, 'glass cup');
    substance(w, 'sodium chloride', cup);
    expect(type(w, 'mix glass cup')).toBe('There is not enough in the glass cup to mix.');
    substance(w, 'water', cup);
    expect(type(w, 'mix glass cup')).toBe('Chemicals in the glass cup mix to produce salt water.');
    expect(type(w, 'look at glass cup')).toBe('a glass cup (containing a substance called salt water)');
  });

  it('mixes paints on the colour wheel and refuses non-recipes', () => {
    const w = house('kitchen');
    const cup = find(w, 'glass cup');
    substance(w, 'red paint', cup);
    substance(w, 'blue paint', cup);
    expect(mix(w, cup)).toBe('Chemicals in the glass cup mix to produce violet paint.');
    substance(w, 'red paint', cup);
    expect(mix(w, cup)).toBe('Chemicals in the glass cup mix to produce red-violet paint.');
    substance(w, 'water', cup);
    expect(mix(w, cup)).toBe('Mixing the contents of the glass cup does not produce anything new.');
    expect(type(w, 'mix thermometer')).toBe("It's not clear how to mix that.");
  });
});

describe('sciworld life stages', () => {
  it('grows a watered seed through its stages and leaves a dry one alone', () => {
    const w = house('greenhouse');
    const pot = item(w, 'flower pot 9', w.agentRoom(), 'ceramic', { container: true });
    substance(w, 'soil', pot);
    substance(w, 'water', pot);
    const plant = makePlant(w, 'apple tree', pot);
    expect(plant.name).toBe('apple seed');
    w.tick(PLANT_STAGE_TICKS);
    expect(plant.life!.stage).toBe('seedling');
    expect(type(w, 'look at apple tree')).toBe('an apple tree in the seedling stage');
    w.tick(PLANT_STAGE_TICKS);
    expect(plant.life!.stage).toBe('adult');
    w.tick(PLANT_STAGE_TICKS);
    expect(plant.life!.stage).toBe('reproducing');

    const dry = item(w, 'flower pot 8', w.agentRoom(), 'ceramic', { container: true });
    substance(w, 'soil', dry);
    const seed = makePlant(w, 'pea plant', dry);
    w.tick(3 * PLANT_STAGE_TICKS);
    expect(seed.life!.stage).toBe('seed');
  });

  it('lets a plant die without water and hatches eggs', () => {
    const w = house('greenhouse');
    const pot = item(w, 'flower pot 9', w.agentRoom(), 'ceramic', { container: true });
    const plant = makePlant(w, 'rose plant', pot, 'adult');
    w.tick(PLANT_THIRST_LIMIT + 1);
    expect(plant.life!.stage).toBe('dead');
    expect(plant.isLiving()).toBe(false);
    const frog = makeAnimal(w, 'frog', w.agentRoom(), 'egg');
    expect(type(w, 'look at frog')).toBe('a frog egg');
    w.tick(20);
    expect(frog.life!.stage).toBe('baby');
    expect(type(w, 'look at frog')).toBe('a baby frog');
  });
});
