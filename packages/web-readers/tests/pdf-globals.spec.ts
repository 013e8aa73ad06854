// The 2D DOMMatrix pdf.js is given in Node, checked against a real one: the
// DOMMatrix of @napi-rs/canvas (pdf.js's optional native package, which the
// workspace install holds), operation by operation.
import assert from 'node:assert/strict'
import { createRequire } from 'node:module'
import { describe, it } from 'node:test'
import { DomMatrix2D } from '../src/pdf/pdf-globals.js'

type Matrix = { a: number; b: number; c: number; d: number; e: number; f: number }
type MatrixClass = new (init?: number[]) => Matrix & Record<string, (...args: any[]) => any>

function nativeMatrix(): MatrixClass {
  const fromPdfJs = createRequire(createRequire(import.meta.url).resolve('pdfjs-dist/package.json'))
  return fromPdfJs('@napi-rs/canvas').DOMMatrix
}

function entries(matrix: Matrix): number[] {
  return [matrix.a, matrix.b, matrix.c, matrix.d, matrix.e, matrix.f]
}

function assertClose(actual: Matrix, expected: Matrix, step: string): void {
  entries(actual).forEach((value, index) => {
    const want = entries(expected)[index]!
    if (Number.isNaN(want)) assert.ok(Number.isNaN(value), `${step}: entry ${index} is NaN`)
    else assert.ok(Math.abs(value - want) < 1e-9 * Math.max(1, Math.abs(want)), `${step}: entry ${index} is ${value}, the DOM's is ${want}`)
  })
}

describe("pdf.js's DOMMatrix in Node (DomMatrix2D)", () => {
  it('agrees with a real DOMMatrix on every operation pdf.js uses', () => {
    const Native = nativeMatrix()
    const steps: [string, (m: any, Kind: any) => any][] = [
      ['new', (_m, Kind) => new Kind()],
      ['from six numbers', (_m, Kind) => new Kind([2, 0.5, -1, 3, 10, -4])],
      ['multiplySelf', (m, Kind) => m.multiplySelf(new Kind([0.5, 1, 2, -1, 3, 7]))],
      ['preMultiplySelf', (m, Kind) => m.preMultiplySelf(new Kind([1, 0.25, 0, 2, -5, 6]))],
      ['translateSelf', (m) => m.translateSelf(12, -3)],
      ['scaleSelf', (m) => m.scaleSelf(1 / 37, -1 / 11)],
      ['scaleSelf, one factor', (m) => m.scaleSelf(4)],
      ['invertSelf', (m) => m.invertSelf()],
      ['multiply', (m, Kind) => m.multiply(new Kind([3, 0, 0, 3, 1, 1]))],
      ['translate', (m) => m.translate(-7, 2)],
      ['scale', (m) => m.scale(2, 0.5)],
      ['inverse', (m) => m.inverse()],
      ['a singular inverse', (_m, Kind) => new Kind([1, 2, 2, 4, 0, 0]).invertSelf()],
    ]
    let ours: any
    let theirs: any
    for (const [step, apply] of steps) {
      ours = apply(ours, DomMatrix2D)
      theirs = apply(theirs, Native)
      assertClose(ours, theirs, step)
    }
    const point = new DomMatrix2D([2, 0.5, -1, 3, 10, -4]).transformPoint({ x: 3, y: -2 })
    const native = new Native([2, 0.5, -1, 3, 10, -4]).transformPoint({ x: 3, y: -2 })
    assert.deepEqual([point.x, point.y], [native.x, native.y])
    const made = new DomMatrix2D([2, 0.5, -1, 3, 10, -4])
    assert.deepEqual([made.m11, made.m12, made.m21, made.m22, made.m41, made.m42], [2, 0.5, -1, 3, 10, -4])
    assert.equal(new DomMatrix2D().isIdentity, true)
    assert.equal(made.isIdentity, false)
  })

  it('refuses a 3D matrix rather than flatten it', () => {
    assert.throws(() => new DomMatrix2D(Array.from({ length: 16 }, () => 1)), /takes 6 numbers \(a 2D matrix\), not 16/)
  })
})
