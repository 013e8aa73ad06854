#!/usr/bin/env node
// The `dsh` bin of dsh-harness alone: every command but dsh mcp, which is
// dsh-mcp's (dsh-cli's dsh has it); asked for, it says where it is.
import { runCommandLine } from './cli/main.js'
import { mcpInAnotherPackage } from './cli/program.js'

runCommandLine([mcpInAnotherPackage])
