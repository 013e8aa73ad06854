/**
 * The converter that turns values into JSON text (or console text) inside
 * the QuickJS interpreter, as source evaluated in each context before the
 * model's code runs: the built-ins it uses are captured then, so code that
 * changes them later changes nothing here. It returns `{ convert, slice }`:
 *
 * - `convert(value, root, mode, maxChars, maxDepth, walkOnly)` gives
 *   `{ ok: true, text, length, notes }` or `{ ok: false, code, message }`.
 *   Plain data goes through the engine's own JSON.stringify with a replacer
 *   that checks each value; anything else, and everything in `log` mode, is
 *   walked here, applying the rules in docs/security.md and naming paths.
 *   Both stop as soon as the text passes `maxChars`.
 * - `slice(text, start, size)` gives a piece of a long string that never
 *   ends inside a surrogate pair, for copying out.
 *
 * Getters, toJSON and Proxy traps run under the interpreter's deadline and
 * memory limit like any other code; what they throw propagates.
 */
export const CONVERTER_SOURCE = String.raw`(() => {
  'use strict'
  const uncurry = (fn) => Function.prototype.call.bind(fn)
  const tagOf = uncurry(Object.prototype.toString)
  const testPattern = uncurry(RegExp.prototype.test)
  const join = uncurry(Array.prototype.join)
  const valueOfNumber = uncurry(Number.prototype.valueOf)
  const valueOfString = uncurry(String.prototype.valueOf)
  const valueOfBoolean = uncurry(Boolean.prototype.valueOf)
  const quote = JSON.stringify
  const keysOf = Object.keys
  const isArray = Array.isArray
  const isFinite = Number.isFinite
  const toString = String
  const create = Object.create
  const charCodeAt = uncurry(String.prototype.charCodeAt)
  const sliceString = uncurry(String.prototype.slice)
  const NativeMap = Map
  const mapGet = uncurry(Map.prototype.get)
  const mapSet = uncurry(Map.prototype.set)
  const mapDelete = uncurry(Map.prototype.delete)
  const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/
  const REFUSED = Object.assign(create(null), {
    '[object Map]': 'a Map; convert it with Object.fromEntries(map) or [...map]',
    '[object Set]': 'a Set; convert it with [...set]',
    '[object WeakMap]': 'a WeakMap, which cannot be listed',
    '[object WeakSet]': 'a WeakSet, which cannot be listed',
    '[object Promise]': 'a Promise; await it first',
    '[object RegExp]': 'a RegExp; convert it with String(pattern)',
    '[object ArrayBuffer]': 'an ArrayBuffer; convert it with Array.from(new Uint8Array(buffer))',
    '[object SharedArrayBuffer]': 'a SharedArrayBuffer; convert it with Array.from(new Uint8Array(buffer))',
    '[object DataView]': 'a DataView; convert its bytes with Array.from(new Uint8Array(view.buffer))',
  })
  const TYPED = /^\[object (Big)?(Int|Uint|Float)(8|16|32|64)(Clamped)?Array\]$/
  class Stop { constructor(code, message) { this.code = code; this.message = message } }

  const FALLBACK = new Stop('', '')
  const TOO_LARGE = new Stop('CODE_RESOURCE_LIMIT', '')
  // Plain data, the common case, is written by the engine's own JSON.stringify, several times faster than
  // the walk below; the replacer hands anything else to the walk (which may run getters a second time),
  // and keeps a lower bound of the text's length, so an oversized result stops early.
  const quick = (value, maxChars) => {
    let budget = maxChars + 1
    const replacer = (key, item) => {
      switch (typeof item) {
        case 'string':
          budget -= item.length + 3
          break
        case 'number':
          if (!isFinite(item)) throw FALLBACK
          budget -= 2
          break
        case 'boolean':
          budget -= 2
          break
        case 'object':
          if (item !== null && !isArray(item) && tagOf(item) !== '[object Object]') throw FALLBACK
          budget -= 2
          break
        default:
          throw FALLBACK
      }
      if (budget < 0) throw TOO_LARGE
      return item
    }
    let text
    try {
      text = quote(value, replacer)
    } catch (error) {
      if (error === TOO_LARGE) return { ok: false, code: error.code, message: '' }
      // A cycle, a getter that threw, nesting past the engine's stack: the walk says which and where.
      return undefined
    }
    if (typeof text !== 'string') return undefined
    if (text.length > maxChars) return { ok: false, code: 'CODE_RESOURCE_LIMIT', message: '' }
    return { ok: true, text, length: text.length, notes: [] }
  }

  const convert = (value, root, mode, maxChars, maxDepth, walkOnly) => {
    if (mode !== 'log' && value !== undefined && !walkOnly) {
      const written = quick(value, maxChars)
      if (written) return written
    }
    // Small pieces are joined every few thousand, so that the pieces never cost much more than the text.
    const blocks = []
    let pieces = []
    let length = 0
    // The objects being written, from the top down, each with its depth: a cycle is a value that is one of them.
    const ancestors = new NativeMap()
    const keys = []
    const notes = create(null)
    const noteOrder = []
    const lenient = mode === 'log'
    const strict = mode === 'input'

    const pathOf = (depth, key) => {
      let path = root
      const last = key === undefined ? depth : depth + 1
      for (let index = 0; index < last; index++) {
        const part = index < depth ? keys[index] : key
        path += typeof part === 'number' ? '[' + part + ']' : testPattern(IDENTIFIER, part) ? '.' + part : '[' + quote(part) + ']'
      }
      return path.length > 300 ? sliceString(path, 0, 150) + '…' + sliceString(path, path.length - 120) : path
    }
    const emit = (text) => {
      length += text.length
      if (length > maxChars) throw new Stop('CODE_RESOURCE_LIMIT', '')
      pieces[pieces.length] = text
      if (pieces.length >= 4096) {
        blocks[blocks.length] = join(pieces, '')
        pieces = []
      }
    }
    const refuse = (depth, key, what) => {
      throw new Stop('CODE_RESULT_NOT_JSON', pathOf(depth, key) + ' is ' + what)
    }
    // A conversion JSON would make quietly: noted in result mode, refused for tool input.
    const convertNote = (depth, key, kind, what) => {
      if (strict) refuse(depth, key, what + ', which JSON cannot carry')
      if (lenient) return
      const note = notes[kind]
      if (note) note.count++
      else {
        notes[kind] = { count: 1, first: pathOf(depth, key) }
        noteOrder[noteOrder.length] = kind
      }
    }

    // What JSON.stringify would write for a value: toJSON's result when it has one.
    const resolve = (item, key) => {
      if (item !== null && (typeof item === 'object' || typeof item === 'bigint') && typeof item.toJSON === 'function') {
        return item.toJSON(typeof key === 'number' ? toString(key) : key === undefined ? '' : key)
      }
      return item
    }
    const write = (item, depth, key) => writeResolved(resolve(item, key), depth, key)
    const writeResolved = (item, depth, key) => {
      switch (typeof item) {
        case 'string':
          emit(quote(item))
          return
        case 'boolean':
          emit(item ? 'true' : 'false')
          return
        case 'number':
          if (isFinite(item)) emit('' + item)
          else if (lenient) emit(toString(item))
          else {
            convertNote(depth, key, 'number', toString(item))
            emit('null')
          }
          return
        case 'bigint':
          if (lenient) emit(toString(item) + 'n')
          else {
            convertNote(depth, key, 'bigint', 'a BigInt')
            emit(quote(toString(item)))
          }
          return
        case 'undefined':
          // Undefined properties never get here (writeObject leaves them out); at the top it is a result of its own kind.
          if (lenient) emit('undefined')
          else {
            convertNote(depth, key, 'array-undefined', 'undefined (or a hole) in an array')
            emit('null')
          }
          return
        case 'symbol':
          if (lenient) emit(toString(item))
          else refuse(depth, key, 'a Symbol, which JSON cannot carry')
          return
        case 'function':
          if (lenient) emit('[Function' + (item.name ? ' ' + item.name : '') + ']')
          else refuse(depth, key, 'a function, which JSON cannot carry')
          return
      }
      if (item === null) {
        emit('null')
        return
      }
      const array = isArray(item)
      const tag = array ? '[object Array]' : tagOf(item)
      if (lenient && tag === '[object Error]') {
        emit('[' + toString(item) + ']')
        return
      }
      if (tag === '[object Number]') return writeResolved(valueOfNumber(item), depth, key)
      if (tag === '[object String]') return writeResolved(valueOfString(item), depth, key)
      if (tag === '[object Boolean]') return writeResolved(valueOfBoolean(item), depth, key)
      const refusal = REFUSED[tag] ?? (testPattern(TYPED, tag) ? 'a typed array; convert it with Array.from(array)' : undefined)
      if (refusal) {
        if (lenient) emit('[' + sliceString(tag, 8, -1) + ']')
        else refuse(depth, key, refusal)
        return
      }
      const ancestor = mapGet(ancestors, item)
      if (ancestor !== undefined) {
        if (lenient) emit('[Circular]')
        else refuse(depth, key, 'the same object as ' + pathOf(ancestor) + ' (a cycle), which JSON cannot carry')
        return
      }
      if (depth + (key === undefined ? 0 : 1) >= maxDepth) {
        if (lenient) emit('[Deep]')
        else refuse(depth, key, 'nested more than ' + maxDepth + ' levels deep')
        return
      }
      const inner = key === undefined ? depth : depth + 1
      if (key !== undefined) keys[depth] = key
      mapSet(ancestors, item, inner)
      if (tag === '[object Error]' && !lenient) {
        convertNote(depth, key, 'error', 'an Error')
        const plain = { name: toString(item.name), message: toString(item.message) }
        if (typeof item.code === 'string') plain.code = item.code
        writeObject(plain, inner)
      } else if (array) {
        emit('[')
        const count = item.length
        for (let index = 0; index < count; index++) {
          const element = item[index]
          // Numbers and strings, the bulk of most results, without the general path's calls.
          if (typeof element === 'number' && isFinite(element)) emit(index > 0 ? ',' + element : '' + element)
          else if (typeof element === 'string') emit(index > 0 ? ',' + quote(element) : quote(element))
          else {
            if (index > 0) emit(',')
            write(element, inner, index)
          }
        }
        emit(']')
      } else {
        writeObject(item, inner)
      }
      mapDelete(ancestors, item)
      return
    }
    const writeObject = (item, depth) => {
      emit('{')
      const names = keysOf(item)
      let first = true
      for (let index = 0; index < names.length; index++) {
        const name = names[index]
        const property = resolve(item[name], name)
        if (property === undefined && !lenient) {
          if (!strict) convertNote(depth, name, 'property-undefined', 'undefined')
          continue
        }
        emit((first ? '' : ',') + quote(name) + ':')
        first = false
        writeResolved(property, depth, name, false)
      }
      emit('}')
    }

    try {
      if (value === undefined && !lenient) return { ok: true, text: undefined, length: 0, notes: [] }
      if (lenient && typeof value === 'string') {
        if (value.length > maxChars) throw new Stop('CODE_RESOURCE_LIMIT', '')
        return { ok: true, text: value, length: value.length, notes: [] }
      }
      write(value, 0, undefined, false)
    } catch (error) {
      if (error instanceof Stop) return { ok: false, code: error.code, message: error.message }
      throw error
    }
    const list = []
    for (let index = 0; index < noteOrder.length; index++) {
      const kind = noteOrder[index]
      const { count, first } = notes[kind]
      const where = count === 1 ? first : count + ' places, the first ' + first
      list[list.length] =
        kind === 'number' ? 'NaN or Infinity became null at ' + where :
        kind === 'bigint' ? 'a BigInt became a string of its digits at ' + where :
        kind === 'array-undefined' ? 'undefined (or a hole) in an array became null at ' + where :
        kind === 'property-undefined' ? 'a property whose value is undefined was left out at ' + where :
        'an Error became { name, message } at ' + where
    }
    blocks[blocks.length] = join(pieces, '')
    const text = join(blocks, '')
    return { ok: true, text, length: text.length, notes: list }
  }
  // A piece of a long string to copy out, never ending inside a surrogate pair.
  const slice = (text, start, size) => {
    let end = start + size
    if (end < text.length) {
      const unit = charCodeAt(text, end - 1)
      if (unit >= 0xd800 && unit <= 0xdbff) end--
    }
    return sliceString(text, start, end)
  }
  return { convert, slice }
})()`
