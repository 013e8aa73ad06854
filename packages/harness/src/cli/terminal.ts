/** Light terminal rendering of the markdown tools return, and a spinner on stderr. */

const bold = (text: string) => `\x1b[1m${text}\x1b[22m`
const dim = (text: string) => `\x1b[2m${text}\x1b[22m`
const underline = (text: string) => `\x1b[4m${text}\x1b[24m`

export function renderForTerminal(markdown: string): string {
  let inFence = false
  return markdown
    .split('\n')
    .map((line) => {
      if (/^```/.test(line)) {
        inFence = !inFence
        return dim(line)
      }
      if (inFence) return line
      if (/^<\/?untrusted-content\b/.test(line)) return dim(line)
      const heading = /^(#{1,6})\s+(.*)$/.exec(line)
      if (heading) return bold(heading[2])
      return line
        .replace(/\*\*([^*]+)\*\*/g, (_, text) => bold(text))
        .replace(/\[([^\]]+)\]\((https?:[^)\s]+)\)/g, (_, text, url) => `${underline(text)} ${dim(`<${url}>`)}`)
    })
    .join('\n')
}

export interface Spinner {
  stop(): void
}

/** A spinner on stderr, only when stderr is a terminal. */
export function startSpinner(label: string): Spinner | undefined {
  if (!process.stderr.isTTY) return undefined
  const frames = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏']
  let index = 0
  const timer = setInterval(() => process.stderr.write(`\r${frames[index++ % frames.length]} ${label}`), 80)
  let stopped = false
  return {
    stop() {
      if (stopped) return
      stopped = true
      clearInterval(timer)
      process.stderr.write('\r\x1b[2K')
    },
  }
}
