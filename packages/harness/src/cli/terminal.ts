/**
 * What dsh writes for people: content made safe for a terminal, a light
 * rendering of the markdown tools return, and a spinner on stderr.
 */

/**
 * C0 controls but tab and newline (ESC, BEL, CR, backspace...), DEL, the C1
 * controls (U+0080–U+009F, CSI and OSC among them), and the bidi controls
 * (marks, embeddings, overrides, isolates) that reorder what a terminal shows.
 */
const UNSAFE_FOR_TERMINAL = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g

/**
 * Content as visible text: each character a terminal would act on rather than
 * show is written as its escape (`\x1b`, `\x07`, `\x9b`, `\u202e`), so no page,
 * provider or log can move the cursor, retitle the window, recolour, hide or
 * reorder text. Applied to everything dsh prints for people, on a terminal or
 * not: a pipe or a file is often read on a terminal later.
 */
export function escapeForTerminal(text: string): string {
  return text.replace(UNSAFE_FOR_TERMINAL, (char) => {
    const code = char.charCodeAt(0)
    return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`
  })
}

const bold = (text: string) => `\x1b[1m${text}\x1b[22m`
const dim = (text: string) => `\x1b[2m${text}\x1b[22m`
const underline = (text: string) => `\x1b[4m${text}\x1b[24m`

/** Markdown for a terminal: content escaped first (`escapeForTerminal`), then dsh's own styling added. */
export function renderForTerminal(markdown: string): string {
  let inFence = false
  return escapeForTerminal(markdown)
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
