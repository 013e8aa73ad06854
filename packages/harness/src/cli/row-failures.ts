import type { Composition, RowState } from '../compose/boot.js'

/**
 * One line per row that did not come up, for the person who runs dsh: the
 * file, the row, the cause and the fix. What stops every command that boots
 * (unless --allow-failed-rows), and what dsh doctor reports row by row.
 */
export function failedRowLines(composition: Composition): string[] {
  return composition.rows().flatMap((row) => {
    const line = describeRowFailure(row)
    return line ? [line] : []
  })
}

export function describeRowFailure(row: RowState): string | undefined {
  const disable = `or disable the row (\`- id: ${row.id}\` with \`disabled: true\` in an overlay)`
  const label = `row "${row.id}" (${row.name})`
  switch (row.status) {
    case 'failed': {
      const flags = Object.entries(row.configSources).filter(([, source]) => source === 'command line').map(([key]) => key)
      const fix = flags.length
        ? `check the command-line values of ${flags.join(', ')} (--private-host, --resolve)`
        : `correct the row's config in ${row.configFrom} (see the plugin's keys with dsh docs config)`
      return `${row.configFrom}: ${label} failed to start: ${oneLine(row.error ?? 'unknown error')}. Fix: ${fix}, ${disable}.`
    }
    case 'pending': {
      const services = row.waitingFor?.join(', ') || '(unknown)'
      return `${row.nameFrom}: ${label} is pending: it waits for the service(s) ${services}, which no mounted row provides. Fix: mount the row that provides ${services}, ${disable}.`
    }
    case 'starting':
      return `${row.nameFrom}: ${label} is still starting: its apply or a ready hook has not finished. Fix: check what ${row.name} waits for at start, ${disable}.`
    default:
      return undefined
  }
}

function oneLine(text: string): string {
  return text.replace(/\s*\n\s*/g, ' ').replace(/\.$/, '')
}
