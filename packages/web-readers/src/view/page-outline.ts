import type { FetchFormat, PageHeading } from 'dsh-web'

/** Characters of a heading's title kept at most; a longer one ends with "…". */
export const HEADING_TITLE_MAX = 120
/** Headings an outline shows at most; it says how many the page has. */
export const OUTLINE_MAX = 50

/**
 * The headings of the converted text, in order: in markdown the ATX lines
 * (`## Title`) outside code fences, in HTML the h1 to h6 elements; plain
 * text marks none. Titles are page text (untrusted), their inline markup
 * dropped.
 */
export function readHeadings(text: string, format: FetchFormat): PageHeading[] {
  if (format === 'markdown') return markdownHeadings(text)
  if (format === 'html') return htmlHeadings(text)
  return []
}

function markdownHeadings(text: string): PageHeading[] {
  const headings: PageHeading[] = []
  let fence: string | undefined
  // Only the lines that can be a heading or a code fence are looked at.
  for (const line of text.matchAll(/^ {0,3}(?:#{1,6}[ \t]|`{3,}|~{3,}).*$/gm)) {
    const fenceMark = /^ {0,3}(`{3,}|~{3,})/.exec(line[0])?.[1]
    if (fenceMark) {
      if (fence === undefined) fence = fenceMark[0]
      else if (fenceMark[0] === fence) fence = undefined
      continue
    }
    if (fence !== undefined) continue
    const heading = /^ {0,3}(#{1,6})[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$/.exec(line[0])
    if (!heading) continue
    const title = cleanTitle(heading[2].replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1').replace(/\*\*|__|`/g, ''))
    if (title) headings.push({ level: heading[1].length, title, offset: line.index })
  }
  return headings
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' }

function htmlHeadings(text: string): PageHeading[] {
  const headings: PageHeading[] = []
  // The inner part is bounded, so an unclosed heading costs a bounded scan, not the rest of the page.
  for (const match of text.matchAll(/<h([1-6])\b[^>]{0,500}>([\s\S]{0,2000}?)<\/h\1\s*>/gi)) {
    const inner = match[2]
      .replace(/<[^>]*>/g, ' ')
      .replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (entity, name: string) => {
        if (name[0] !== '#') return ENTITIES[name.toLowerCase()] ?? entity
        const code = name[1] === 'x' || name[1] === 'X' ? parseInt(name.slice(2), 16) : parseInt(name.slice(1), 10)
        return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : entity
      })
    const title = cleanTitle(inner)
    if (title) headings.push({ level: Number(match[1]), title, offset: match.index })
  }
  return headings
}

function cleanTitle(title: string): string {
  const clean = title.replace(/\s+/g, ' ').trim()
  if (clean.length <= HEADING_TITLE_MAX) return clean
  let end = HEADING_TITLE_MAX - 1
  if (/[\ud800-\udbff]/.test(clean[end - 1])) end--
  return `${clean.slice(0, end)}…`
}

/** The heading path of any offset: the headings it sits under, outermost first. */
export class HeadingPaths {
  private readonly paths: string[][] = []

  constructor(readonly headings: PageHeading[]) {
    const stack: PageHeading[] = []
    for (const heading of headings) {
      while (stack.length && stack[stack.length - 1].level >= heading.level) stack.pop()
      stack.push(heading)
      this.paths.push(stack.map((entry) => entry.title))
    }
  }

  /** The index of the last heading at or before `offset`, -1 before the first. */
  sectionAt(offset: number): number {
    let low = 0
    let high = this.headings.length - 1
    let found = -1
    while (low <= high) {
      const middle = (low + high) >> 1
      if (this.headings[middle].offset <= offset) {
        found = middle
        low = middle + 1
      } else high = middle - 1
    }
    return found
  }

  at(offset: number): string[] {
    const section = this.sectionAt(offset)
    return section < 0 ? [] : [...this.paths[section]]
  }
}

/**
 * The outline of a page: its headings in order, at most OUTLINE_MAX. A page
 * with more keeps its upper levels whole (h1 and h2, say) rather than the
 * first fifty of every level; `total` says how many it has.
 */
export function outlineOf(headings: PageHeading[]): { outline: PageHeading[]; total: number } {
  let shown = headings
  for (let level = 6; shown.length > OUTLINE_MAX && level > 1; level--) shown = shown.filter((heading) => heading.level < level)
  return { outline: shown.slice(0, OUTLINE_MAX).map((heading) => ({ ...heading })), total: headings.length }
}
