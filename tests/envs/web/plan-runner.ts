/**
 * Test helper: follows a web task's oracle plan over HTTP as a browser without JavaScript would,
 * reading the HTML the sites serve: a link or button is found by its accessible name (text or
 * aria-label), a field by its <label>, a form is submitted with its hidden inputs and defaults.
 * A step that names nothing on the page throws, so a passing run proves the plan fits the site.
 * A `goto` with a `site` moves to that site (a multi-site task's plan); later steps act there.
 */
import type { SiteName, SiteServer } from '../../../envs/web/site-server.ts';
import type { WebPlanStep } from '../../../envs/web/tasks/index.ts';
import { fetchAs, postAs, type Page } from './fetch-as.ts';

export interface PlanEnd {
  /** Path and query of the last page. */
  readonly path: string;
  readonly html: string;
  readonly answer: string;
}

const decode = (text: string) =>
  text.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&amp;/g, '&');
const textOf = (inner: string) => decode(inner.replace(/<[^>]*>/g, '')).replace(/\s+/g, ' ').trim();
const attr = (tag: string, name: string) => {
  const m = new RegExp(`\\s${name}="([^"]*)"`).exec(tag);
  return m ? decode(m[1] ?? '') : undefined;
};

export async function runPlan(server: SiteServer, id: string, startSite: SiteName, startPath: string, plan: readonly WebPlanStep[]): Promise<PlanEnd> {
  let site = startSite;
  let path = '';
  let html = '';
  let pending = new Map<string, string>();
  const load = async (first: Promise<Page>) => {
    let page = await first;
    for (let hops = 0; page.location !== null; hops++) {
      if (hops > 5) throw new Error('too many redirects');
      path = page.location;
      page = await fetchAs(server, id, site, path);
    }
    if (page.status >= 400) throw new Error(`${path} answered ${page.status}: ${textOf(/<main>([\s\S]*)<\/main>/.exec(page.html)?.[1] ?? '').slice(0, 300)}`);
    html = page.html;
  };
  const open = (target: string) => {
    path = target;
    return load(fetchAs(server, id, site, target));
  };
  /** The control a <label> names: its tag and the form around it. */
  const labelled = (label: string) => {
    const labels = [...html.matchAll(/<label for="([^"]+)">([\s\S]*?)<\/label>/g)].filter((m) => textOf(m[2] ?? '') === label);
    if (labels.length !== 1) throw new Error(`${labels.length} labels named '${label}' on ${path}`);
    const forId = labels[0]?.[1] ?? '';
    const control = new RegExp(`<(input|textarea|select)\\b[^>]*\\sid="${forId}"[^>]*>`).exec(html);
    if (!control) throw new Error(`no control with id ${forId} on ${path}`);
    return { tag: control[0], kind: control[1] as string, index: control.index };
  };

  await open(startPath);
  for (const step of plan) {
    if ('goto' in step) {
      site = step.site ?? startSite;
      await open(step.goto);
    }
    else if ('clickLink' in step) {
      const links = [...html.matchAll(/<a\b([^>]*)>([\s\S]*?)<\/a>/g)].filter((m) => textOf(m[2] ?? '') === step.clickLink || attr(m[1] ?? '', 'aria-label') === step.clickLink);
      const hrefs = [...new Set(links.map((m) => attr(m[1] ?? '', 'href')))];
      if (hrefs.length !== 1 || hrefs[0] === undefined) throw new Error(`${hrefs.length} link targets named '${step.clickLink}' on ${path}`);
      await open(hrefs[0]);
    } else if ('fill' in step) {
      const { tag } = labelled(step.fill.label);
      pending.set(attr(tag, 'name') ?? '', step.fill.value);
    } else if ('select' in step) {
      const { tag, kind, index } = labelled(step.select.label);
      if (kind !== 'select') throw new Error(`'${step.select.label}' is a ${kind}, not a drop-down`);
      const body = html.slice(index, html.indexOf('</select>', index));
      const option = [...body.matchAll(/<option value="([^"]*)"[^>]*>([^<]*)<\/option>/g)].find((m) => textOf(m[2] ?? '') === step.select.option);
      if (!option) throw new Error(`no option '${step.select.option}' in '${step.select.label}' on ${path}`);
      pending.set(attr(tag, 'name') ?? '', decode(option[1] ?? ''));
    } else if ('check' in step) {
      const { tag } = labelled(step.check);
      pending.set(attr(tag, 'name') ?? '', attr(tag, 'value') ?? 'on');
    } else if ('clickButton' in step) {
      const buttons = [...html.matchAll(/<button\b([^>]*)>([\s\S]*?)<\/button>/g)].filter((m) => (attr(m[1] ?? '', 'aria-label') ?? textOf(m[2] ?? '')) === step.clickButton);
      if (buttons.length !== 1) throw new Error(`${buttons.length} buttons named '${step.clickButton}' on ${path}`);
      const at = buttons[0]?.index ?? 0;
      const start = html.lastIndexOf('<form', at);
      const form = html.slice(start, html.indexOf('</form>', at));
      const formTag = /<form\b[^>]*>/.exec(form)?.[0] ?? '';
      const values = new URLSearchParams();
      for (const m of form.matchAll(/<input\b[^>]*>/g)) {
        const name = attr(m[0], 'name');
        const type = attr(m[0], 'type') ?? 'text';
        if (!name || ((type === 'radio' || type === 'checkbox') && !m[0].includes(' checked'))) continue;
        values.set(name, attr(m[0], 'value') ?? '');
      }
      for (const m of form.matchAll(/<textarea\b([^>]*)>([\s\S]*?)<\/textarea>/g)) values.set(attr(m[1] ?? '', 'name') ?? '', decode(m[2] ?? ''));
      for (const m of form.matchAll(/<select\b([^>]*)>([\s\S]*?)<\/select>/g)) {
        const options = [...(m[2] ?? '').matchAll(/<option value="([^"]*)"([^>]*)>/g)];
        values.set(attr(m[1] ?? '', 'name') ?? '', decode((options.find((o) => (o[2] ?? '').includes('selected')) ?? options[0])?.[1] ?? ''));
      }
      for (const [name, value] of pending) if (form.includes(`name="${name}"`)) values.set(name, value);
      pending = new Map();
      const action = attr(formTag, 'action') ?? path;
      if ((attr(formTag, 'method') ?? 'get').toLowerCase() === 'post') {
        path = action;
        await load(postAs(server, id, site, action, Object.fromEntries(values)));
      } else await open(`${action}?${values.toString()}`);
    } else return { path, html, answer: step.stop };
  }
  throw new Error('the plan does not end with a stop step');
}
