/**
 * What pdf.js needs from a browser before it can be imported in Node, and
 * nothing more. Its display layer builds a `DOMMatrix` when the module loads
 * (and its worker builds one for some glyph outlines); in Node it borrows one
 * from the optional native package `@napi-rs/canvas`, and without it the
 * import fails ("DOMMatrix is not defined"): a PDF could not be read wherever
 * that package has no build, was left out (`npm install --omit=optional`), or
 * was bundled for another platform. Reading text needs only the 2D affine
 * matrix, so that is what this defines, the same on every platform; nothing
 * here draws, so `Path2D` and `ImageData` stay absent (pdf.js warns and reads
 * the text all the same).
 */

type Matrix2D = Pick<DomMatrix2D, 'a' | 'b' | 'c' | 'd' | 'e' | 'f'>

const IDENTITY = [1, 0, 0, 1, 0, 0]

/**
 * The 2D subset of the DOM's `DOMMatrix` (the geometry spec's
 * `[a c e; b d f; 0 0 1]`): construction from six numbers, the products,
 * translation, scaling, inversion and point transforms, with the `m11…m42`
 * aliases. A 3D matrix is refused rather than flattened.
 */
export class DomMatrix2D {
  a = 1
  b = 0
  c = 0
  d = 1
  e = 0
  f = 0

  constructor(init?: ArrayLike<number> | Matrix2D) {
    if (init === undefined) return
    if (isMatrix(init)) {
      this.set(init.a, init.b, init.c, init.d, init.e, init.f)
      return
    }
    if (init.length !== 6) throw new TypeError(`This DOMMatrix takes 6 numbers (a 2D matrix), not ${init.length}`)
    this.set(init[0], init[1], init[2], init[3], init[4], init[5])
  }

  get m11(): number { return this.a }
  set m11(value: number) { this.a = value }
  get m12(): number { return this.b }
  set m12(value: number) { this.b = value }
  get m21(): number { return this.c }
  set m21(value: number) { this.c = value }
  get m22(): number { return this.d }
  set m22(value: number) { this.d = value }
  get m41(): number { return this.e }
  set m41(value: number) { this.e = value }
  get m42(): number { return this.f }
  set m42(value: number) { this.f = value }
  get is2D(): boolean { return true }
  get isIdentity(): boolean {
    return this.a === 1 && this.b === 0 && this.c === 0 && this.d === 1 && this.e === 0 && this.f === 0
  }

  /** this = this × other */
  multiplySelf(other: ArrayLike<number> | Matrix2D = IDENTITY): this {
    return this.set(...product(this, toMatrix(other)))
  }

  /** this = other × this */
  preMultiplySelf(other: ArrayLike<number> | Matrix2D): this {
    return this.set(...product(toMatrix(other), this))
  }

  translateSelf(tx = 0, ty = 0): this {
    return this.multiplySelf([1, 0, 0, 1, tx, ty])
  }

  scaleSelf(scaleX = 1, scaleY = scaleX): this {
    return this.multiplySelf([scaleX, 0, 0, scaleY, 0, 0])
  }

  /** A matrix with no inverse becomes all NaN, as the DOM's does. */
  invertSelf(): this {
    const det = this.a * this.d - this.b * this.c
    if (det === 0 || !Number.isFinite(det)) return this.set(NaN, NaN, NaN, NaN, NaN, NaN)
    return this.set(this.d / det, -this.b / det, -this.c / det, this.a / det, (this.c * this.f - this.d * this.e) / det, (this.b * this.e - this.a * this.f) / det)
  }

  multiply(other: ArrayLike<number> | Matrix2D): DomMatrix2D {
    return new DomMatrix2D(this).multiplySelf(other)
  }

  translate(tx?: number, ty?: number): DomMatrix2D {
    return new DomMatrix2D(this).translateSelf(tx, ty)
  }

  scale(scaleX?: number, scaleY?: number): DomMatrix2D {
    return new DomMatrix2D(this).scaleSelf(scaleX, scaleY)
  }

  inverse(): DomMatrix2D {
    return new DomMatrix2D(this).invertSelf()
  }

  transformPoint(point: { x?: number; y?: number } = {}): { x: number; y: number; z: number; w: number } {
    const x = point.x ?? 0
    const y = point.y ?? 0
    return { x: this.a * x + this.c * y + this.e, y: this.b * x + this.d * y + this.f, z: 0, w: 1 }
  }

  toFloat64Array(): Float64Array {
    return Float64Array.of(this.a, this.b, 0, 0, this.c, this.d, 0, 0, 0, 0, 1, 0, this.e, this.f, 0, 1)
  }

  private set(a: number, b: number, c: number, d: number, e: number, f: number): this {
    this.a = a
    this.b = b
    this.c = c
    this.d = d
    this.e = e
    this.f = f
    return this
  }
}

function isMatrix(value: ArrayLike<number> | Matrix2D): value is Matrix2D {
  return typeof (value as Matrix2D).a === 'number' && (value as ArrayLike<number>).length === undefined
}

function toMatrix(value: ArrayLike<number> | Matrix2D): Matrix2D {
  return value instanceof DomMatrix2D ? value : new DomMatrix2D(value)
}

/**
 * Makes `globalThis.DOMMatrix` this 2D matrix, before pdf.js reads a
 * document: the same matrix on every platform, whether or not the native
 * package loaded. pdf.js looks the global up at each use.
 */
export function installPdfGlobals(): void {
  ;(globalThis as { DOMMatrix?: unknown }).DOMMatrix = DomMatrix2D
}

/**
 * For a process that must import pdf.js before it can load TypeScript (the
 * document process on source, document-process.ts): a stand-in that lets
 * pdf.js's module body construct its one matrix (used only for drawing), so
 * that the import never depends on the native package; installPdfGlobals
 * replaces it before any document is read. JavaScript source, run as is.
 */
export const PDF_IMPORT_STAND_IN = 'globalThis.DOMMatrix ??= class DOMMatrix {};'

/** left × right, as the six numbers a, b, c, d, e, f of a 2D affine matrix. */
function product(left: Matrix2D, right: Matrix2D): [number, number, number, number, number, number] {
  return [
    left.a * right.a + left.c * right.b,
    left.b * right.a + left.d * right.b,
    left.a * right.c + left.c * right.d,
    left.b * right.c + left.d * right.d,
    left.a * right.e + left.c * right.f + left.e,
    left.b * right.e + left.d * right.f + left.f,
  ]
}
