import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import type { DocumentMetadata, FetchFormat } from 'dsh-web'
import { DocumentError, atUrl } from '../workers/document-error.js'
import type { ExtractOutput } from '../html/extract-html.js'
import { installPdfGlobals } from './pdf-globals.js'
import { layoutPage, type PdfTextItem } from './pdf-layout.js'
import { boldFonts, drawnMarks, type PageDrawing, type PdfOperatorList, type PdfOps } from './pdf-drawing.js'

/** The library and version named in provenance (`extractor`). */
export const PDF_EXTRACTOR = 'pdfjs-dist@5.6'

/**
 * The most text one PDF may yield: a body under the byte cap can still
 * inflate to gigabytes of text operators, and the text crosses to the main
 * process whole. Four times what the 5 MB default body holds as plain text.
 */
export const MAX_PDF_TEXT_CHARS = 20_000_000

/** The marker line before each page's text, in every format. */
export function pageMarker(pageNumber: number, options: { noText?: boolean } = {}): string {
  return options.noText ? `--- page ${pageNumber} (no text layer: scanned or drawn) ---` : `--- page ${pageNumber} ---`
}

interface PdfJs {
  getDocument(source: Record<string, unknown>): { promise: Promise<PdfDocument>; destroy(): Promise<void> }
  PDFDateString: { toDateObject(input: string): Date | null }
  OPS: PdfOps
  AnnotationMode: { DISABLE: number }
}

interface PdfOutlineNode {
  title?: unknown
  dest?: unknown
  items?: PdfOutlineNode[]
}

interface PdfDocument {
  numPages: number
  getMetadata(): Promise<{ info?: Record<string, unknown> }>
  getOutline(): Promise<PdfOutlineNode[] | null>
  getDestination(id: string): Promise<unknown[] | null>
  getPageIndex(ref: unknown): Promise<number>
  getPage(pageNumber: number): Promise<{
    getTextContent(): Promise<{ items: unknown[] }>
    getOperatorList(options: { annotationMode: number }): Promise<PdfOperatorList>
    commonObjs: { has(id: string): boolean; get(id: string): { name?: unknown } }
    cleanup(): void
  }>
}

let library: Promise<PdfJs> | undefined

/** pdf.js is loaded by the document processes only (document-child.ts): HTML workers never pay for it. */
function loadPdfJs(): Promise<PdfJs> {
  installPdfGlobals()
  library ??= import('pdfjs-dist/legacy/build/pdf.mjs') as unknown as Promise<PdfJs>
  return library
}

/** The package's CMaps (for CJK text) and standard font metrics, read from disk, never fetched. */
function dataFolders(): { cMapUrl: string; standardFontDataUrl: string } {
  const root = dirname(createRequire(import.meta.url).resolve('pdfjs-dist/package.json'))
  return { cMapUrl: `${join(root, 'cmaps')}/`, standardFontDataUrl: `${join(root, 'standard_fonts')}/` }
}

function infoString(info: Record<string, unknown> | undefined, key: string): string | undefined {
  const value = info?.[key]
  return typeof value === 'string' && value.trim() ? value.replace(/\s+/g, ' ').trim() : undefined
}

function infoDate(pdfjs: PdfJs, info: Record<string, unknown> | undefined): string | undefined {
  const value = infoString(info, 'CreationDate')
  if (!value) return undefined
  const date = pdfjs.PDFDateString.toDateObject(value)
  return date && !Number.isNaN(date.getTime()) ? date.toISOString() : undefined
}

function unreadable(shownUrl: string | undefined, error: unknown): DocumentError {
  const name = (error as { name?: string })?.name
  if (name === 'PasswordException') {
    return new DocumentError('WEB_DOCUMENT_UNREADABLE', `The PDF${atUrl(shownUrl)} is encrypted with a password; its text cannot be read without it. Look for another copy of the document.`, {
      contentType: 'application/pdf',
      reason: 'encrypted',
    })
  }
  return new DocumentError('WEB_DOCUMENT_UNREADABLE', `The PDF${atUrl(shownUrl)} is damaged and cannot be read (${(error as Error)?.message ?? String(error)}). Look for another copy of the document.`, {
    contentType: 'application/pdf',
    reason: 'damaged',
  })
}

/** Bookmarks read of a PDF's outline at most, and how deep: a document's outline is the page's to make as large as it likes. */
export const OUTLINE_MAX_ENTRIES = 200
const OUTLINE_MAX_DEPTH = 6
const OUTLINE_TITLE_MAX = 200

/** The line before a PDF's bookmarks, when it has them: they are the document's own outline, not headings we found. */
export const OUTLINE_MARKER = "--- outline (the PDF's bookmarks) ---"

/**
 * The PDF's own outline (its bookmarks), one line per entry, indented by
 * level, with the page each leads to where its destination names one:
 * at most OUTLINE_MAX_ENTRIES entries (the rest counted), OUTLINE_MAX_DEPTH
 * levels. Undefined when the PDF has none, or its outline cannot be read
 * (an outline is a help, never a reason to fail the document).
 */
async function readOutline(document: PdfDocument): Promise<string | undefined> {
  let roots: PdfOutlineNode[] | null
  try {
    roots = await document.getOutline()
  } catch {
    return undefined
  }
  if (!roots?.length) return undefined
  const lines: string[] = []
  let skipped = 0
  const walk = async (nodes: PdfOutlineNode[], depth: number): Promise<void> => {
    for (const node of nodes) {
      if (lines.length === OUTLINE_MAX_ENTRIES || depth >= OUTLINE_MAX_DEPTH) {
        skipped += 1 + countNodes(node.items)
        continue
      }
      const title = typeof node.title === 'string' ? node.title.replace(/\s+/g, ' ').trim().slice(0, OUTLINE_TITLE_MAX) : ''
      const page = await destinationPage(document, node.dest)
      lines.push(`${'  '.repeat(depth)}- ${title || '(untitled)'}${page ? ` (page ${page})` : ''}`)
      if (node.items?.length) await walk(node.items, depth + 1)
    }
  }
  await walk(roots, 0)
  if (skipped) lines.push(`(${skipped} more bookmarks not listed: the outline lists ${OUTLINE_MAX_ENTRIES} at most, ${OUTLINE_MAX_DEPTH} levels deep)`)
  return `${OUTLINE_MARKER}\n${lines.join('\n')}`
}

function countNodes(nodes: PdfOutlineNode[] | undefined, budget = { left: 100_000 }): number {
  let count = 0
  for (const node of nodes ?? []) {
    if (budget.left-- <= 0) break
    count += 1 + countNodes(node.items, budget)
  }
  return count
}

/** The page (from 1) a bookmark's destination leads to: a named destination or an explicit one whose first element is the page's reference. */
async function destinationPage(document: PdfDocument, dest: unknown): Promise<number | undefined> {
  try {
    const explicit = typeof dest === 'string' ? await document.getDestination(dest) : dest
    if (!Array.isArray(explicit)) return undefined
    const target: unknown = explicit[0]
    // A remote destination names the page by its index; a local one by the page's reference.
    if (typeof target === 'number') return Number.isInteger(target) && target >= 0 ? target + 1 : undefined
    if (target === null || typeof target !== 'object') return undefined
    return (await document.getPageIndex(target)) + 1
  } catch {
    return undefined
  }
}

/**
 * A PDF's text layer, page by page, each page after its marker line. pdf.js
 * runs here in a document process (document-child.ts), under the pool's
 * deadline and the process's memory cap; eval (used by its font compiler) is off. A PDF with pages but no text
 * on any is WEB_NO_TEXT_CONTENT (it is most likely scanned: no OCR is run); an
 * encrypted or damaged one is WEB_DOCUMENT_UNREADABLE (both as DocumentError).
 */
export async function extractPdf(input: { bytes: Uint8Array; shownUrl?: string; format: FetchFormat }): Promise<ExtractOutput> {
  const pdfjs = await loadPdfJs()
  const task = pdfjs.getDocument({
    // pdf.js may take the buffer over; give it a copy so the caller's bytes stay whole.
    data: new Uint8Array(input.bytes),
    ...dataFolders(),
    cMapPacked: true,
    isEvalSupported: false,
    disableFontFace: true,
    useSystemFonts: false,
    enableXfa: false,
    isOffscreenCanvasSupported: false,
    // Nothing is drawn: the operator list is read for the shapes of bullets only, so no image is ever decoded.
    maxImageSize: 1,
    verbosity: 0,
  })
  try {
    let document: PdfDocument
    try {
      document = await task.promise
    } catch (error) {
      throw unreadable(input.shownUrl, error)
    }
    const pageCount = document.numPages
    const info = (await document.getMetadata().catch(() => ({ info: undefined }))).info
    const parts: string[] = []
    const pageStarts: number[] = []
    const outline = await readOutline(document)
    if (outline) parts.push(outline)
    let chars = outline ? outline.length + 2 : 0
    const empty: number[] = []
    const warnings: string[] = []
    for (let pageNumber = 1; pageNumber <= pageCount; pageNumber++) {
      let text = ''
      try {
        const page = await document.getPage(pageNumber)
        const items = (await page.getTextContent()).items as PdfTextItem[]
        let drawing: PageDrawing = {}
        if (items.length) {
          const operators = await page.getOperatorList({ annotationMode: pdfjs.AnnotationMode.DISABLE })
          const fontNames = new Set(items.flatMap((item) => (item.fontName ? [item.fontName] : [])))
          drawing = { marks: drawnMarks(operators, pdfjs.OPS), boldFonts: boldFonts(fontNames, (id) => (page.commonObjs.has(id) ? page.commonObjs.get(id) : undefined)) }
        }
        text = layoutPage(items, input.format, drawing)
        page.cleanup()
      } catch (error) {
        warnings.push(`Page ${pageNumber} could not be read (${(error as Error)?.message ?? error}); it is shown empty.`)
      }
      if (!text) empty.push(pageNumber)
      pageStarts.push(chars)
      parts.push(text ? `${pageMarker(pageNumber)}\n${text}` : pageMarker(pageNumber, { noText: true }))
      chars += parts.at(-1)!.length + 2
      if (chars > MAX_PDF_TEXT_CHARS) {
        throw new DocumentError(
          'WEB_DOCUMENT_TOO_COMPLEX',
          `The PDF${atUrl(input.shownUrl)} yields more than ${MAX_PDF_TEXT_CHARS.toLocaleString('en-US')} characters of text by page ${pageNumber} of ${pageCount} (its streams expand far beyond its size); it was not read further. Look for a smaller copy or an HTML version of the document.`,
          { contentType: 'application/pdf', pageCount, limit: MAX_PDF_TEXT_CHARS },
        )
      }
    }
    const plural = pageCount === 1 ? 'page' : 'pages'
    if (empty.length === pageCount) {
      throw new DocumentError(
        'WEB_NO_TEXT_CONTENT',
        `The PDF${atUrl(input.shownUrl)} has ${pageCount} ${plural} and no text layer on any of them (it is most likely scanned images); web_fetch does not read text out of images.`,
        { contentType: 'application/pdf', pageCount },
      )
    }
    if (empty.length) warnings.push(`${empty.length} of ${pageCount} pages have no text layer (scanned or drawn): ${empty.join(', ')}; each says so in its marker.`)
    if (input.format === 'html') warnings.push('A PDF has no HTML; its text is returned, page by page.')
    const metadata: DocumentMetadata = { sourceFormat: 'pdf', pageCount }
    const title = infoString(info, 'Title')
    const author = infoString(info, 'Author')
    const created = infoDate(pdfjs, info)
    const lang = infoString(info, 'Language')
    if (title) metadata.title = title
    if (author) metadata.byline = author
    if (created) metadata.publishedTime = created
    if (lang) metadata.lang = lang
    return { text: parts.join('\n\n'), metadata, links: [], extractor: PDF_EXTRACTOR, warnings, pageStarts }
  } finally {
    await task.destroy().catch(() => undefined)
  }
}
