// Short messages at the bottom of the screen (errors of background actions, confirmations).
import { signal } from '@preact/signals'
import { errorText } from '../api/client'

export interface Toast {
  id: number
  text: string
  kind: 'info' | 'error'
}
export const toasts = signal<Toast[]>([])
let n = 0

export function toast(text: string, kind: Toast['kind'] = 'info'): void {
  const id = ++n
  toasts.value = [...toasts.value, { id, text, kind }]
  setTimeout(() => (toasts.value = toasts.value.filter((t) => t.id !== id)), kind === 'error' ? 8000 : 4000)
}
export const toastError = (err: unknown): void => toast(errorText(err), 'error')
