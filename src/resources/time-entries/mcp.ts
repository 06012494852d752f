// The MCP tools of the time-entries family: starting and stopping the timer.
import { z } from 'zod'
import { type Tool, fieldsFrom, write } from '../../mcp/tools.js'
import { StartTimerBody } from './schema.js'

export const TIMER_TOOLS: readonly Tool[] = [
  {
    name: 'start_timer',
    title: 'Start a timer',
    description: 'Starts your timer on a card; a timer already running is stopped first and kept as a time entry.',
    input: fieldsFrom(StartTimerBody),
    annotations: write({ destructive: false, idempotent: false }),
    run: (call, body) => call('startTimer', { body }),
  },
  {
    name: 'stop_timer',
    title: 'Stop the timer',
    description: 'Stops your running timer; the time becomes a time entry on its card.',
    input: z.strictObject({}),
    annotations: write({ destructive: false, idempotent: false }),
    run: (call) => call('stopTimer', {}),
  },
]
