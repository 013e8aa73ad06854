import { readFile } from 'node:fs/promises'
import { boot, type GlobalOptions, invokeTool, type Output, UsageError } from './commands.js'

export interface FetchFlags {
  format?: string
  maxChars?: string
  offset?: string
  extract?: string
  find?: string
  query?: string
  pages?: string
}

/** Boots the preset (the command's default unless --preset) and invokes one tool in it. */
async function invokeInPreset(options: GlobalOptions, defaultPreset: string, tool: string, input: Record<string, unknown>, io: Output): Promise<number> {
  const composition = await boot(options, io, { defaultPreset })
  try {
    return await invokeTool(composition, options, tool, input, io)
  } finally {
    await composition.dispose()
  }
}

export function runSearch(options: GlobalOptions, words: string[], io: Output): Promise<number> {
  const query = words.join(' ').trim()
  if (!query) throw new UsageError('usage: dsh search QUERY...  (the words form one query)')
  return invokeInPreset(options, 'standard', 'web_search', { queries: [query] }, io)
}

export function runFetch(options: GlobalOptions, url: string, flags: FetchFlags, io: Output): Promise<number> {
  const input: Record<string, unknown> = { url }
  if (flags.format !== undefined) input.format = flags.format
  if (flags.extract !== undefined) input.extract = flags.extract
  if (flags.maxChars !== undefined) input.max_chars = integer('--max-chars', flags.maxChars)
  if (flags.offset !== undefined) input.offset = integer('--offset', flags.offset)
  // Checked by the tool like any caller's: a bad phrase, query or range gets the tool's own error.
  if (flags.find !== undefined) input.find = flags.find
  if (flags.query !== undefined) input.query = flags.query
  if (flags.pages !== undefined) input.pages = flags.pages
  return invokeInPreset(options, 'standard', 'web_fetch', input, io)
}

export async function runRunCode(options: GlobalOptions, file: string, io: Output): Promise<number> {
  let code: string
  if (file === '-') {
    const chunks: Buffer[] = []
    for await (const chunk of process.stdin) chunks.push(chunk as Buffer)
    code = Buffer.concat(chunks).toString('utf8')
  } else {
    try {
      code = await readFile(file, 'utf8')
    } catch (error: any) {
      throw new UsageError(`Cannot read ${file}: ${error?.code ?? error?.message ?? error}`)
    }
  }
  return invokeInPreset(options, 'ptc', 'run_code', { code }, io)
}

function integer(flag: string, text: string): number {
  if (!/^-?\d+$/.test(text)) throw new UsageError(`${flag} takes a whole number, not "${text}".`)
  return Number(text)
}
