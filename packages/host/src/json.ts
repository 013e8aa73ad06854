/** A value JSON can carry as is: what tool inputs, outputs and session events hold. */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue }
