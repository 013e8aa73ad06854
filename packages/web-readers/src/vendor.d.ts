// Minimal typings for the untyped dependencies, covering what this package uses.
declare module 'turndown' {
  interface Rule {
    filter: string | string[] | ((node: unknown, options: unknown) => boolean)
    replacement: (content: string, node: unknown, options: unknown) => string
  }
  interface Options {
    headingStyle?: 'setext' | 'atx'
    hr?: string
    bulletListMarker?: '-' | '+' | '*'
    codeBlockStyle?: 'indented' | 'fenced'
    emDelimiter?: '_' | '*'
    strongDelimiter?: '__' | '**'
    linkStyle?: 'inlined' | 'referenced'
  }
  class TurndownService {
    constructor(options?: Options)
    use(plugin: (service: TurndownService) => void): this
    addRule(key: string, rule: Rule): this
    remove(filter: string | string[]): this
    keep(filter: string | string[]): this
    turndown(input: string | unknown): string
  }
  export default TurndownService
}
declare module 'turndown-plugin-gfm' {
  export function gfm(service: unknown): void
}
