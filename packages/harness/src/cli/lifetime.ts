import { UsageError } from './errors.js'

/** `30d`, `12h`, `90m`, `8w`: a lifetime or an age in milliseconds, given to `flag` (dsh session prune --older-than, dsh mcp token create --expires). */
export function parseLifetime(text: string, flag: string): number {
  const match = /^(\d{1,6})([mhdw])$/.exec(text.trim())
  if (!match || Number(match[1]) < 1) {
    throw new UsageError(`${flag} takes a whole number of minutes, hours, days or weeks, like 90m, 12h, 30d or 8w, not "${text}".`)
  }
  const unit = { m: 60_000, h: 3_600_000, d: 86_400_000, w: 7 * 86_400_000 }[match[2] as 'm' | 'h' | 'd' | 'w']
  return Number(match[1]) * unit
}
