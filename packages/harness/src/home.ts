import { homedir } from 'node:os'
import { resolve } from 'node:path'

/** `$DSH_HOME`, else `~/.dsh`: where credentials and sessions live. */
export function defaultHome(): string {
  const fromEnv = process.env.DSH_HOME
  return resolve(fromEnv && fromEnv.trim() ? fromEnv : resolve(homedir(), '.dsh'))
}
