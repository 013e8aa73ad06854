import { newQuickJSWASMModuleFromVariant, newVariant, type QuickJSWASMModule, RELEASE_SYNC } from 'quickjs-emscripten'

/** Node has WebAssembly; the project's lib settings (ES2023, no DOM) do not declare it, so the little used here is declared here. */
interface WasmMemory {
  readonly buffer: ArrayBuffer
  grow(delta: number): number
}
/** A compiled WebAssembly.Module, shared between threads as it is. */
export type WasmModule = object
const Wasm = (globalThis as unknown as { WebAssembly: {
  Memory: new (descriptor: { initial: number; maximum: number }) => WasmMemory
  compile(bytes: Uint8Array): Promise<WasmModule>
} }).WebAssembly

/** Compiles the interpreter's WebAssembly from its bytes. */
export function compileInterpreter(bytes: Uint8Array): Promise<WasmModule> {
  return Wasm.compile(bytes)
}

const PAGE = 65536
/** The interpreter's WebAssembly module asks for 16 MB of memory to start with, and cannot run in less. */
export const MINIMUM_MEMORY_BYTES = 256 * PAGE

export interface BoundedInterpreter {
  QuickJS: QuickJSWASMModule
  /** True once the interpreter asked for memory past its limit and was refused: its heap is used up. */
  exhausted(): boolean
  /** Bytes of WebAssembly memory the interpreter has now (what it really holds, static data and stack included). */
  bytes(): number
  /** The most it may ever have. */
  maximumBytes: number
}

/**
 * A QuickJS interpreter whose whole memory is one WebAssembly.Memory with a
 * fixed maximum of `limitBytes` (at least the module's 16 MB minimum).
 *
 * QuickJS's own runtime limit cannot be trusted here: built for WebAssembly,
 * it has no malloc_usable_size and counts 8 bytes per allocation whatever its
 * size, so it bounds single allocations only. The WebAssembly memory is what
 * the host really pays for; with a maximum the engine refuses to grow it, the
 * allocator returns NULL and QuickJS throws "out of memory". The refusal is
 * also seen here (the memory's `grow` is wrapped), so that a script that
 * catches that error and carries on is still stopped.
 */
export async function createBoundedInterpreter(limitBytes: number, wasmModule?: WasmModule): Promise<BoundedInterpreter> {
  const maximumBytes = Math.max(MINIMUM_MEMORY_BYTES, Math.ceil(limitBytes / PAGE) * PAGE)
  const memory = new Wasm.Memory({ initial: MINIMUM_MEMORY_BYTES / PAGE, maximum: maximumBytes / PAGE })
  let refused = false
  const grow = memory.grow.bind(memory)
  // Emscripten's heap resize tries a few sizes and stops at the first that fits: the last attempt says whether it got memory.
  memory.grow = (delta: number) => {
    try {
      const previous = grow(delta)
      refused = false
      return previous
    } catch (error) {
      refused = true
      throw error
    }
  }
  const variant = newVariant(RELEASE_SYNC, { wasmMemory: memory as never, ...(wasmModule ? { wasmModule: wasmModule as never } : {}) })
  const QuickJS = await newQuickJSWASMModuleFromVariant(variant)
  return {
    QuickJS,
    exhausted: () => refused,
    bytes: () => memory.buffer.byteLength,
    maximumBytes,
  }
}
