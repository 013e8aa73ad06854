import { CompositionError, type Layer } from './composition-files.js'

/** A row after every layer has had its say. */
export interface MergedRow {
  id: string
  name: string
  config: Record<string, unknown>
  disabled: boolean
  /** The file that set the package name. */
  nameFrom: string
  /** The file whose `config` is in force (the row's own file if none replaced it). */
  configFrom: string
  /** The package the row named when that config was written: another package than `name` means the config was written for another plugin. */
  configName: string
  /** Every later layer that replaced the row's config, in order. */
  replacements: ConfigReplacement[]
}

/** A later layer's `config` taking the place of an earlier one, whole. */
export interface ConfigReplacement {
  /** The file that replaced the config. */
  file: string
  /** The config as that file wrote it. */
  config: Record<string, unknown>
  /** The config in force before, and the file it came from. */
  previous: Record<string, unknown>
  previousFrom: string
  /** The package before and after that layer (a layer may swap both). */
  previousName: string
  name: string
}

/**
 * Later layers win. A row with a known id replaces that row's `config` as a
 * whole, its `name`, or its `disabled`; a new id adds a row and needs a name.
 */
export function mergeLayers(layers: Layer[]): MergedRow[] {
  const rows = new Map<string, MergedRow>()
  for (const layer of layers) {
    for (const spec of layer.rows) {
      const existing = rows.get(spec.id)
      if (existing) {
        const previousName = existing.name
        if (spec.name !== undefined) {
          existing.name = spec.name
          existing.nameFrom = layer.file
        }
        if (spec.config !== undefined) {
          existing.replacements.push({
            file: layer.file,
            config: spec.config,
            previous: existing.config,
            previousFrom: existing.configFrom,
            previousName,
            name: existing.name,
          })
          existing.config = spec.config
          existing.configFrom = layer.file
          existing.configName = existing.name
        }
        if (spec.disabled !== undefined) existing.disabled = spec.disabled
        continue
      }
      if (!spec.name) {
        throw new CompositionError(
          `${layer.file}: row "${spec.id}": no earlier layer has a row with this id, so a new row needs "name" (the package to mount). ` +
            `Known ids: ${[...rows.keys()].join(', ') || 'none'}.`,
        )
      }
      rows.set(spec.id, {
        id: spec.id,
        name: spec.name,
        config: spec.config ?? {},
        disabled: spec.disabled ?? false,
        nameFrom: layer.file,
        configFrom: layer.file,
        configName: spec.name,
        replacements: [],
      })
    }
  }
  return [...rows.values()]
}
