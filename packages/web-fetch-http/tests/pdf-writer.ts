import { createHash } from 'node:crypto'
import { deflateSync } from 'node:zlib'

/**
 * A minimal PDF writer for test fixtures: pages of text in the standard
 * Helvetica font (a text layer), pages of drawn shapes only (no text layer, as
 * a scan is), document information (title, author), and the standard
 * security handler's 40-bit RC4 encryption with a user password (PDF 1.7,
 * 7.6.3, revision 2). Every fixture is made by the tests; none is downloaded.
 */

/** One piece of text placed on the page: its baseline's start, in points from the bottom left. */
export interface PdfRun {
  text: string
  x: number
  y: number
  /** Font size in points (default 12). */
  size?: number
  /** Helvetica-Bold instead of Helvetica. */
  bold?: boolean
}

export interface PdfPage {
  /** Lines of text, drawn top-down; absent: no text layer. */
  lines?: string[]
  /** Text placed where a layout puts it (headings, columns, tables), after `lines`. */
  runs?: PdfRun[]
  /** Filled rectangles [x, y, width, height], drawn as vector art. */
  rectangles?: [number, number, number, number][]
  /**
   * Small shapes as an engine draws a list's bullets: a filled disc or
   * square of `size` points whose bottom left is at x, y, drawn in a scaled
   * coordinate system of its own (`cm`), as Chromium draws them.
   */
  marks?: { x: number; y: number; size: number; shape: 'disc' | 'square' }[]
  /**
   * Bytes of white space the page's content stream inflates to, after its
   * operators: the stream is compressed twice (two FlateDecode filters), so a
   * gigabyte takes a few kilobytes of PDF, as a decompression bomb does.
   */
  inflatesTo?: number
}

/** A bookmark of the PDF's outline: its title, the page it leads to (from 1), the bookmarks under it. */
export interface PdfBookmark {
  title: string
  page: number
  children?: PdfBookmark[]
}

export interface PdfOptions {
  title?: string
  author?: string
  /** The document's outline (its bookmarks), each leading to a page. */
  outline?: PdfBookmark[]
  /** Encrypts the document: it cannot be opened without this password. */
  userPassword?: string
}

/** PDF 7.6.3.3, Algorithm 2: the 32 bytes every password is padded with. */
const PADDING = Buffer.from('28bf4e5e4e758a4164004e56fffa01082e2e00b6d0683e802f0ca9fe6453697a', 'hex')

function padPassword(password: string): Buffer {
  return Buffer.concat([Buffer.from(password, 'latin1'), PADDING]).subarray(0, 32)
}

function md5(...parts: Buffer[]): Buffer {
  const hash = createHash('md5')
  for (const part of parts) hash.update(part)
  return hash.digest()
}

/** RC4 by hand: OpenSSL 3 keeps it in its legacy provider, which Node may not load. */
function rc4(key: Buffer, data: Buffer): Buffer {
  const state = Array.from({ length: 256 }, (_, index) => index)
  for (let i = 0, j = 0; i < 256; i++) {
    j = (j + state[i]! + key[i % key.length]!) & 255
    ;[state[i], state[j]] = [state[j]!, state[i]!]
  }
  const out = Buffer.alloc(data.length)
  for (let n = 0, i = 0, j = 0; n < data.length; n++) {
    i = (i + 1) & 255
    j = (j + state[i]!) & 255
    ;[state[i], state[j]] = [state[j]!, state[i]!]
    out[n] = data[n]! ^ state[(state[i]! + state[j]!) & 255]!
  }
  return out
}

interface Encryption {
  key: Buffer
  dictionary: string
  id: Buffer
}

/** Revision 2 of the standard security handler: O (Algorithm 3), the file key (Algorithm 2), U (Algorithm 4). */
function encryption(userPassword: string): Encryption {
  const id = md5(Buffer.from(`dsh-web test fixture ${userPassword}`))
  const permissions = -4 // every permission bit set (bits 1 and 2 are reserved and 0)
  const owner = rc4(md5(padPassword(`${userPassword}-owner`)).subarray(0, 5), padPassword(userPassword))
  const p = Buffer.alloc(4)
  p.writeInt32LE(permissions)
  const key = md5(padPassword(userPassword), owner, p, id).subarray(0, 5)
  const user = rc4(key, PADDING)
  const dictionary = `<< /Filter /Standard /V 1 /R 2 /Length 40 /P ${permissions} /O <${owner.toString('hex')}> /U <${user.toString('hex')}> >>`
  return { key, dictionary, id }
}

/** Algorithm 1: the key of one object's strings and streams. */
function objectKey(fileKey: Buffer, objectNumber: number): Buffer {
  const suffix = Buffer.from([objectNumber & 255, (objectNumber >> 8) & 255, (objectNumber >> 16) & 255, 0, 0])
  return md5(fileKey, suffix).subarray(0, Math.min(fileKey.length + 5, 16))
}

/** The WinAnsiEncoding bytes of the characters it has beyond Latin-1 that the fixtures use. */
const WIN_ANSI: Record<string, string> = { '•': '\x95', '–': '\x96', '—': '\x97' }

function pdfString(text: string): string {
  return `(${text.replace(/[\\()]/g, (character) => `\\${character}`).replace(/[•–—]/g, (character) => WIN_ANSI[character]!)})`
}

function contentStream(page: PdfPage): string {
  const operators: string[] = []
  for (const [x, y, width, height] of page.rectangles ?? []) operators.push(`0.2 0.4 0.8 rg ${x} ${y} ${width} ${height} re f`)
  for (const mark of page.marks ?? []) {
    // Drawn at four times the scale, then scaled down by the transform: the reader must apply it.
    const r = mark.size * 2
    const path =
      mark.shape === 'square'
        ? `0 0 ${2 * r} ${2 * r} re f`
        : `${2 * r} ${r} m ${2 * r} ${r * 1.552} ${r * 1.552} ${2 * r} ${r} ${2 * r} c ${r * 0.448} ${2 * r} 0 ${r * 1.552} 0 ${r} c 0 ${r * 0.448} ${r * 0.448} 0 ${r} 0 c ${r * 1.552} 0 ${2 * r} ${r * 0.448} ${2 * r} ${r} c f`
    operators.push(`q 0.25 0 0 0.25 ${mark.x} ${mark.y} cm 0 0 0 rg ${path} Q`)
  }
  if (page.lines?.length) {
    operators.push('BT /F1 12 Tf 14 TL 72 720 Td')
    for (const line of page.lines) operators.push(`${pdfString(line)} Tj T*`)
    operators.push('ET')
  }
  for (const run of page.runs ?? []) operators.push(`BT /${run.bold ? 'F2' : 'F1'} ${run.size ?? 12} Tf ${run.x} ${run.y} Td ${pdfString(run.text)} Tj ET`)
  return operators.join('\n')
}

/** Bits into bytes, least significant bit first (RFC 1951, 3.1.1). */
class BitWriter {
  private readonly bytes: Uint8Array
  private bit = 0
  constructor(capacity: number) {
    this.bytes = new Uint8Array(capacity)
  }
  /** A Huffman code, most significant bit first. */
  code(value: number, length: number) {
    for (let index = length - 1; index >= 0; index--) this.bits((value >> index) & 1, 1)
  }
  bits(value: number, length: number) {
    for (let index = 0; index < length; index++, this.bit++) if ((value >> index) & 1) this.bytes[this.bit >> 3]! |= 1 << (this.bit & 7)
  }
  done(): Uint8Array {
    return this.bytes.subarray(0, (this.bit + 7) >> 3)
  }
}

/**
 * A zlib stream of `text` followed by `1 + 258 * matches` spaces, written by
 * hand so that no gigabyte is ever held: one fixed-Huffman block, the text's
 * bytes and a space as literals (ASCII only), then matches of length 258 at
 * distance 1 (13 bits each), then the Adler-32.
 */
function zlibWithSpaces(text: Buffer, matches: number): Buffer {
  const writer = new BitWriter(16 + text.length + Math.ceil((13 * matches) / 8))
  writer.bits(1, 1) // BFINAL
  writer.bits(1, 2) // BTYPE 01: fixed Huffman codes
  for (const byte of [...text, 0x20]) writer.code(0x30 + byte, 8) // literals 0-143
  for (let index = 0; index < matches; index++) {
    writer.code(0b11000101, 8) // length code 285: 258 bytes
    writer.code(0, 5) // distance code 0: 1 byte back
  }
  writer.code(0, 7) // end of block (256)
  let a = 1n
  let b = 0n
  for (const byte of text) {
    a = (a + BigInt(byte)) % 65521n
    b = (b + a) % 65521n
  }
  const spaces = BigInt(1 + 258 * matches)
  b = (b + spaces * a + (32n * spaces * (spaces + 1n)) / 2n) % 65521n
  a = (a + 32n * spaces) % 65521n
  const adler = Buffer.alloc(4)
  adler.writeUInt32BE(Number((b << 16n) | a))
  return Buffer.concat([Buffer.from([0x78, 0x01]), writer.done(), adler])
}

/** The bytes of a PDF with the given pages. */
export function writePdf(pages: PdfPage[], options: PdfOptions = {}): Buffer {
  const objects: (string | { dictionary: string; stream: Buffer })[] = []
  const add = (object: (typeof objects)[number]) => objects.push(object) // object number = index + 1
  const crypt = options.userPassword === undefined ? undefined : encryption(options.userPassword)
  add('<< /Type /Catalog /Pages 2 0 R >>')
  add('') // the page tree, written once the pages' numbers are known
  add('<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>')
  add('<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica-Bold /Encoding /WinAnsiEncoding >>')
  const kids: number[] = []
  for (const page of pages) {
    const operators = Buffer.from(`${contentStream(page)}\n`, 'latin1')
    const raw = page.inflatesTo ? deflateSync(zlibWithSpaces(operators, Math.ceil(page.inflatesTo / 258))) : operators
    const streamNumber = objects.length + 1
    const stream = crypt ? rc4(objectKey(crypt.key, streamNumber), raw) : raw
    const filter = page.inflatesTo ? ' /Filter [/FlateDecode /FlateDecode]' : ''
    add({ dictionary: `<< /Length ${stream.length}${filter} >>`, stream })
    add(`<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R /F2 4 0 R >> >> /Contents ${streamNumber} 0 R >>`)
    kids.push(objects.length)
  }
  objects[1] = `<< /Type /Pages /Kids [${kids.map((kid) => `${kid} 0 R`).join(' ')}] /Count ${kids.length} >>`
  if (options.outline?.length && !crypt) {
    add('') // the outline's root, written once its items' numbers are known
    const root = objects.length
    const items = (bookmarks: PdfBookmark[], parent: number): number[] => {
      const numbers = bookmarks.map(() => {
        add('')
        return objects.length
      })
      bookmarks.forEach((bookmark, index) => {
        const children = bookmark.children?.length ? items(bookmark.children, numbers[index]!) : []
        const entries = [
          `/Title ${pdfString(bookmark.title)}`,
          `/Parent ${parent} 0 R`,
          `/Dest [${kids[bookmark.page - 1]} 0 R /Fit]`,
          index > 0 ? `/Prev ${numbers[index - 1]} 0 R` : '',
          index < numbers.length - 1 ? `/Next ${numbers[index + 1]} 0 R` : '',
          children.length ? `/First ${children[0]} 0 R /Last ${children.at(-1)} 0 R /Count ${children.length}` : '',
        ]
        objects[numbers[index]! - 1] = `<< ${entries.filter(Boolean).join(' ')} >>`
      })
      return numbers
    }
    const top = items(options.outline, root)
    objects[root - 1] = `<< /Type /Outlines /First ${top[0]} 0 R /Last ${top.at(-1)} 0 R /Count ${top.length} >>`
    objects[0] = `<< /Type /Catalog /Pages 2 0 R /Outlines ${root} 0 R >>`
  }
  let info: number | undefined
  if (!crypt && (options.title || options.author)) {
    const entries = [options.title ? `/Title ${pdfString(options.title)}` : '', options.author ? `/Author ${pdfString(options.author)}` : '']
    add(`<< ${entries.filter(Boolean).join(' ')} >>`)
    info = objects.length
  }
  let encrypt: number | undefined
  if (crypt) {
    add(crypt.dictionary)
    encrypt = objects.length
  }

  const chunks: Buffer[] = [Buffer.from('%PDF-1.4\n%\xe2\xe3\xcf\xd3\n', 'latin1')]
  let length = chunks[0]!.length
  const offsets: number[] = []
  const push = (chunk: Buffer) => {
    chunks.push(chunk)
    length += chunk.length
  }
  objects.forEach((object, index) => {
    offsets.push(length)
    if (typeof object === 'string') push(Buffer.from(`${index + 1} 0 obj\n${object}\nendobj\n`, 'latin1'))
    else {
      push(Buffer.from(`${index + 1} 0 obj\n${object.dictionary}\nstream\n`, 'latin1'))
      push(object.stream)
      push(Buffer.from('\nendstream\nendobj\n', 'latin1'))
    }
  })
  const xref = length
  const table = offsets.map((offset) => `${String(offset).padStart(10, '0')} 00000 n \n`).join('')
  const trailer = [
    `/Size ${objects.length + 1}`,
    '/Root 1 0 R',
    info ? `/Info ${info} 0 R` : '',
    encrypt ? `/Encrypt ${encrypt} 0 R` : '',
    crypt ? `/ID [<${crypt.id.toString('hex')}> <${crypt.id.toString('hex')}>]` : '',
  ].filter(Boolean)
  push(Buffer.from(`xref\n0 ${objects.length + 1}\n0000000000 65535 f \n${table}trailer\n<< ${trailer.join(' ')} >>\nstartxref\n${xref}\n%%EOF\n`, 'latin1'))
  return Buffer.concat(chunks)
}
