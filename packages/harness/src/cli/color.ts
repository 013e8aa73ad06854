/**
 * Whether dsh styles what it writes to a stream: never with NO_COLOR set
 * (https://no-color.org), always with FORCE_COLOR set to anything but 0 or
 * false, else only on a terminal.
 */
export function useColor(stream: { isTTY?: boolean }, env: Record<string, string | undefined> = process.env): boolean {
  if (env.NO_COLOR) return false
  const force = env.FORCE_COLOR
  if (force !== undefined && force !== '') return force !== '0' && force.toLowerCase() !== 'false'
  return !!stream.isTTY
}
