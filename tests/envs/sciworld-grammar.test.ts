/**
 * SciWorld's action grammar and messages against ScienceWorld's reference strings
 * (scienceworld/actions/*.scala and its input parser), typed into a furnished house.
 */
import { describe, expect, it } from 'vitest';
import { NO_MATCH, sciworldDefinition, SciWorldEnv } from '../../envs/sciworld/index.ts';
import { normalize } from '../../envs/sciworld/parser.ts';
import { validActions } from '../../envs/sciworld/valid-actions.ts';
import { house, type } from './sciworld-harness.ts';

describe('sciworld grammar: looking and moving', () => {
  it('describes a room as ScienceWorld does', () => {
    const w = house('kitchen');
    const text = type(w, 'look around');
    expect(text.startsWith('This room is called the kitchen. In it, you see: \n\tthe agent\n\ta substance called air\n')).toBe(true);
    expect(text).toContain('\ta stove, which is turned off. On the stove is: nothing.\n');
    expect(text).toContain('\ta fridge. The fridge door is closed.\n');
    expect(text).toContain('\ta table. On the table is: a glass cup (containing nothing).\n');
    expect(text).toContain('\ta thermometer, currently reading a temperature of 20 degrees celsius\n');
    expect(text).toContain('You also see:\n\tA door to the hallway (that is open)\n');
    expect(type(w, 'look')).toBe(text);
  });

  it('opens, closes and walks through doors', () => {
    const w = house('kitchen');
    expect(type(w, 'close door to hallway')).toBe('The door is now closed.');
    expect(type(w, 'close door to hallway')).toBe('The door is already closed.');
    expect(type(w, 'go to hallway')).toBe('The door is not open.');
    expect(type(w, 'open door to hallway')).toBe('The door is now open.');
    expect(type(w, 'go to hallway')).toBe('You move to the hallway.');
    expect(type(w, 'go to foundry')).toBe("It's not clear how to get there from here.");
    expect(type(w, 'walk to kitchen')).toBe('You move to the kitchen.');
    expect(type(w, 'go to stove')).toBe('Its not clear how to go to/through a stove.');
  });

  it('handles containers: look in, open, close', () => {
    const w = house('kitchen');
    expect(type(w, 'look in cupboard')).toBe("The cupboard isn't open, so you can't see inside.");
    expect(type(w, 'open cupboard')).toBe('The cupboard is now open.');
    expect(type(w, 'open cupboard')).toBe('The cupboard is already open.');
    expect(type(w, 'look in cupboard')).toBe(
      'Inside the cupboard is: \n\ta metal pot (containing nothing)\n\ta tin cup (containing nothing)\n\ta ceramic cup (containing nothing)\n\n',
    );
    expect(type(w, 'open stove')).toBe('The stove is not openable.');
    expect(type(w, 'look in thermometer')).toBe("It's not clear how to look inside of that.");
  });

  it('picks up, puts down and moves objects with the original checks', () => {
    const w = house('kitchen');
    expect(type(w, 'pick up thermometer')).toBe('You move the thermometer to the inventory.');
    expect(type(w, 'take thermometer')).toBe('That object already appears to be in the inventory.');
    expect(type(w, 'inventory')).toBe('In your inventory, you see:\n\ta thermometer, currently reading a temperature of 20 degrees celsius\n');
    expect(type(w, 'put down thermometer')).toBe('You move the thermometer to the kitchen.');
    expect(type(w, 'drop thermometer')).toBe('That object does not appear to be in the inventory.');
    expect(type(w, 'inventory')).toBe('In your inventory, you see:\n\tnothing\n');
    expect(type(w, 'pick up stove')).toBe('The stove is not moveable.');
    expect(type(w, 'move glass cup to glass cup')).toBe("You can't move something into itself.");
    expect(type(w, 'move glass cup to thermometer')).toBe("That can't be moved there.");
    expect(type(w, 'move glass cup to fridge')).toBe("That can't be moved there, because the fridge isn't open.");
    expect(type(w, 'move glass cup to stove')).toBe('You move the glass cup to the stove.');
    expect(type(w, 'put glass cup in sink')).toBe('You move the glass cup to the sink.');
  });

  it('refuses to pick up liquids and pours them instead', () => {
    const w = house('kitchen');
    type(w, 'move glass cup to sink');
    type(w, 'activate sink');
    expect(type(w, 'look at glass cup')).toBe('a glass cup (containing a substance called water)');
    expect(type(w, 'pick up water')).toBe(
      "You can't pick up a liquid directly.  Try pouring it from one container to another, or dunking empty containers into containers filled with the liquid.",
    );
    type(w, 'deactivate sink');
    type(w, 'open cupboard');
    expect(type(w, 'pour glass cup into metal pot')).toBe('You pour the contents of the glass cup into the metal pot.');
    expect(type(w, 'pour glass cup into metal pot')).toBe("The glass cup is empty, so there's nothing to pour.");
    expect(type(w, 'look at metal pot')).toBe('a metal pot (containing a substance called water)');
  });

  it('activates and deactivates devices', () => {
    const w = house('kitchen');
    expect(type(w, 'activate stove')).toBe('The stove is now activated.');
    expect(type(w, 'turn on stove')).toBe('The stove is already activated.');
    expect(type(w, 'deactivate stove')).toBe('The stove is now deactivated.');
    expect(type(w, 'turn off stove')).toBe('The stove is already deactivated.');
    expect(type(w, 'activate thermometer')).toBe('The thermometer is not something that can be activated.');
  });

  it('measures with the thermometer, waits and reads', () => {
    const w = house('kitchen');
    expect(type(w, 'use thermometer on stove')).toBe('the thermometer measures a temperature of 20 degrees celsius');
    expect(type(w, 'use stove on thermometer')).toBe("I'm not sure how to use the stove. ");
    expect(type(w, 'wait')).toBe('You decide to wait for 10 iterations.');
    expect(type(w, 'wait1')).toBe('You decide to wait for 1 iterations.');
    expect(w.time).toBe(13);
    type(w, 'go to hallway');
    type(w, 'go to bedroom');
    expect(type(w, 'read book')).toContain('A Short History of Thermometers');
  });

  it('connects and disconnects with ScienceWorld messages', () => {
    const w = house('workshop');
    expect(type(w, 'connect battery anode to light bulb anode')).toBe('anode on battery is now connected to anode on light bulb');
    expect(type(w, 'connect anode in battery to red wire terminal 1')).toBe(
      'anode on battery is already connected, and must be disconnected before it can be connected to something else',
    );
    expect(type(w, 'connect battery to red wire terminal 1')).toBe(
      'Connections must specify specific points of contact on polarized electrical components (e.g. anode, cathode)',
    );
    expect(type(w, 'connect red wire to battery cathode')).toBe(
      'Connections must specify specific points of contact on unpolarized electrical components (e.g. terminal 1, terminal 2)',
    );
    expect(type(w, 'connect table to battery cathode')).toBe("It's not clear how to connect something to table");
    expect(type(w, 'connect battery cathode to battery cathode')).toBe("Something can't be connected to itself.");
    expect(type(w, 'disconnect battery anode')).toBe('You must disconnect entire objects (such as battery) instead of just single terminals');
    expect(type(w, 'disconnect battery')).toBe('battery has been disconnected');
    expect(type(w, 'look at battery')).toBe('a battery. its anode is connected to: nothing. its cathode is connected to: nothing.');
  });

  it('rejects unknown input with the original message', () => {
    const w = house('kitchen');
    for (const input of ['fly to the moon', '', 'look at unicorn', 'go', 'pick up', 'move thermometer', 'wait 5']) {
      expect(type(w, input)).toBe(NO_MATCH);
    }
    expect(NO_MATCH).toBe('No known action matches that input.');
  });

  it('normalizes case, articles and trailing periods', () => {
    expect(normalize('  Pick up THE Thermometer. ')).toBe('pick up thermometer');
    const w = house('kitchen');
    expect(type(w, 'Pick up the thermometer.')).toBe('You move the thermometer to the inventory.');
    expect(type(w, 'look at thermometer in inventory')).toBe('a thermometer, currently reading a temperature of 20 degrees celsius');
  });
});

describe('sciworld grammar: numbered disambiguation', () => {
  it('lists same-named things with their containers and runs the chosen number', () => {
    const w = house('kitchen');
    type(w, 'open cupboard');
    const prompt = type(w, 'look at cup');
    expect(prompt).toBe(
      'Ambiguous request: Please enter the number for the action you intended (or blank to cancel):\n' +
        '0:\tlook at tin cup (in cupboard, in kitchen)\n' +
        '1:\tlook at ceramic cup (in cupboard, in kitchen)\n' +
        '2:\tlook at glass cup (in table, in kitchen)\n',
    );
  });

  it('answers a number after the prompt, cancels on other input, and rejects a bad number', async () => {
    const env = sciworldDefinition.make() as SciWorldEnv;
    const taskId = sciworldDefinition.tasks('test').find((id) => id.startsWith('lifespan-longest-lived/')) as string;
    await env.reset({ taskId });
    const { task } = env.internalState();
    task.world.place(task.world.agent, task.world.room('kitchen'));
    await env.step('open cupboard');
    const prompt = await env.step('look at cup');
    expect(prompt.observation.startsWith('Ambiguous request: Please enter the number for the action you intended (or blank to cancel):\n0:\t')).toBe(true);
    expect(prompt.info.invalidAction).toBe(false);
    const chosen = await env.step('1');
    expect(chosen.observation).toBe('a ceramic cup (containing nothing)');
    expect((await env.step('1')).observation).toBe(NO_MATCH);
    await env.step('look at cup');
    expect((await env.step('7')).observation).toBe(NO_MATCH);
    await env.step('look at cup');
    expect((await env.step('look at stove')).observation).toBe('a stove, which is turned off. On the stove is: nothing.');
  });
});

describe('sciworld available actions', () => {
  it('lists only actions that parse to exactly one action', async () => {
    const env = sciworldDefinition.make() as SciWorldEnv;
    const reset = await env.reset({ taskId: sciworldDefinition.tasks('test')[0] as string });
    const actions = reset.info.availableActions ?? [];
    expect(actions).toContain('look around');
    expect(actions).toContain('inventory');
    expect(actions.length).toBeGreaterThan(20);
    expect(reset.observation).not.toContain('Available actions');
    const { task } = env.internalState();
    const { parse } = await import('../../envs/sciworld/parser.ts');
    for (const a of validActions(task.world)) expect(parse(task.world, a).kind, a).toBe('one');
  });

  it('sends the agent to other rooms through open doors only', () => {
    const w = house('kitchen');
    type(w, 'close door to outside');
    const actions = validActions(w);
    expect(actions).toContain('go to hallway');
    expect(actions).toContain('open door to outside');
    expect(actions).not.toContain('go to outside');
  });
});
