/**
 * What a PDF page's drawing says that its text content does not, read from
 * the page's operator list (pdf.js builds it without drawing anything):
 * - the small shapes it paints: where an engine draws a list's bullets
 *   (Chromium draws a `<ul>`'s discs, circles and squares as paths, not as
 *   text); only the boxes of filled or stroked paths no larger than
 *   MAX_MARK_SIZE are kept, and the layout decides which of them stand
 *   before a line as its bullet (pdf-layout.ts);
 * - which of its fonts are bold: pdf.js loads a font's name (`…-Bold`,
 *   `…,Black`) only for the operator list, never for the text content.
 */

/** What the layout learns from a page's drawing. */
export interface PageDrawing {
  marks?: readonly Mark[]
  /** The text content's `fontName`s of the fonts that are bold. */
  boldFonts?: ReadonlySet<string>
}

/** A drawn shape's box, in points from the page's bottom left, as the text's positions are. */
export interface Mark {
  x: number
  y: number
  end: number
  top: number
}

/** pdf.js's operator codes that matter here (its `OPS` table). */
export interface PdfOps {
  save: number
  restore: number
  transform: number
  paintFormXObjectBegin: number
  paintFormXObjectEnd: number
  constructPath: number
  fill: number
  eoFill: number
  stroke: number
  closeStroke: number
  fillStroke: number
  eoFillStroke: number
  closeFillStroke: number
  closeEOFillStroke: number
}

export interface PdfOperatorList {
  fnArray: number[]
  argsArray: unknown[]
}

/** Larger than this (points, either side) is a figure or a rule, never a bullet. */
const MAX_MARK_SIZE = 20
/** More shapes than this on one page are a drawing: a bullet is looked for among the first ones only. */
const MAX_MARKS = 2_000

type Matrix = [number, number, number, number, number, number]

const multiply = (m: Matrix, n: Matrix): Matrix => [
  m[0] * n[0] + m[2] * n[1],
  m[1] * n[0] + m[3] * n[1],
  m[0] * n[2] + m[2] * n[3],
  m[1] * n[2] + m[3] * n[3],
  m[0] * n[4] + m[2] * n[5] + m[4],
  m[1] * n[4] + m[3] * n[5] + m[5],
]

const isMatrix = (value: unknown): value is Matrix =>
  (Array.isArray(value) || ArrayBuffer.isView(value)) && (value as ArrayLike<unknown>).length === 6 && Array.from(value as ArrayLike<unknown>).every((n) => typeof n === 'number' && Number.isFinite(n))

/** The small painted shapes of a page's operator list, with the transforms in force where each is drawn. */
export function drawnMarks(list: PdfOperatorList, ops: PdfOps): Mark[] {
  const painted = new Set([ops.fill, ops.eoFill, ops.stroke, ops.closeStroke, ops.fillStroke, ops.eoFillStroke, ops.closeFillStroke, ops.closeEOFillStroke])
  const marks: Mark[] = []
  const stack: Matrix[] = []
  let ctm: Matrix = [1, 0, 0, 1, 0, 0]
  for (let index = 0; index < list.fnArray.length && marks.length < MAX_MARKS; index++) {
    const fn = list.fnArray[index]
    const args = list.argsArray[index] as unknown[] | null
    if (fn === ops.save) stack.push(ctm)
    else if (fn === ops.restore) ctm = stack.pop() ?? ctm
    else if (fn === ops.transform && isMatrix(args)) ctm = multiply(ctm, Array.from(args) as Matrix)
    else if (fn === ops.paintFormXObjectBegin) {
      stack.push(ctm)
      if (isMatrix(args?.[0])) ctm = multiply(ctm, Array.from(args[0] as ArrayLike<number>) as Matrix)
    } else if (fn === ops.paintFormXObjectEnd) ctm = stack.pop() ?? ctm
    else if (fn === ops.constructPath && args && painted.has(args[0] as number)) {
      const box = args[2] as ArrayLike<number> | null | undefined
      if (!box || box.length !== 4) continue
      const mark = transformBox(ctm, box[0]!, box[1]!, box[2]!, box[3]!)
      const width = mark.end - mark.x
      const height = mark.top - mark.y
      if (width > 0 && height > 0 && width <= MAX_MARK_SIZE && height <= MAX_MARK_SIZE) marks.push(mark)
    }
  }
  return marks
}

/** A font's name says its weight: Helvetica-Bold, Arial,BoldItalic, Inter-SemiBold, NotoSans-Black. */
const BOLD_NAME = /(?:bold|black|heavy|semibold|demibold|extrabold)/i

/** The fonts (by the text content's `fontName`) whose names say they are bold, as loaded for the operator list. */
export function boldFonts(fontNames: Iterable<string>, loaded: (fontName: string) => { name?: unknown } | undefined): Set<string> {
  const bold = new Set<string>()
  for (const fontName of fontNames) {
    const name = loaded(fontName)?.name
    if (typeof name === 'string' && BOLD_NAME.test(name)) bold.add(fontName)
  }
  return bold
}

function transformBox(m: Matrix, minX: number, minY: number, maxX: number, maxY: number): Mark {
  const xs: number[] = []
  const ys: number[] = []
  for (const [x, y] of [[minX, minY], [minX, maxY], [maxX, minY], [maxX, maxY]] as const) {
    xs.push(m[0] * x + m[2] * y + m[4])
    ys.push(m[1] * x + m[3] * y + m[5])
  }
  return { x: Math.min(...xs), end: Math.max(...xs), y: Math.min(...ys), top: Math.max(...ys) }
}
