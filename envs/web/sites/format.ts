/** Plain text formats shared by the sites and the tasks (no HTML, so tasks load without hono). */

/** Cents as the sites print them: `$24.99`. */
export function money(cents: number): string {
  return `$${(cents / 100).toFixed(2)}`;
}
