// Touch input from the control socket: a point in logical (rotated) display
// coordinates becomes a touch event with the raw controller reading the
// panel's own orientation and range would give.

import type { TouchEvent } from '../../../src/hal/index.ts';
import type { BoardDescriptor } from '../../../boards/index.ts';
import { fail } from './errors.ts';

export function touchEvent(d: BoardDescriptor, kind: unknown, x: unknown, y: unknown): TouchEvent {
  if (!d.touch) fail('ENOTSUP', `${d.type} has no touch panel`);
  if (kind !== 'down' && kind !== 'move' && kind !== 'up') fail('EINVAL', "kind must be 'down', 'move' or 'up'");
  const { width, height, panelWidth, panelHeight, rotation } = d.display;
  if (typeof x !== 'number' || typeof y !== 'number' || !Number.isInteger(x) || !Number.isInteger(y) || x < 0 || y < 0 || x >= width || y >= height) {
    fail('EINVAL', `x and y must be integers inside ${width}x${height}`);
  }
  // logical -> the panel's native coordinates (undo the rotation)
  let px = x;
  let py = y;
  if (rotation === 90) [px, py] = [y, panelHeight - 1 - x];
  else if (rotation === 180) [px, py] = [panelWidth - 1 - x, panelHeight - 1 - y];
  else if (rotation === 270) [px, py] = [panelWidth - 1 - y, x];
  const rawX = Math.round((px * d.touch.maxX) / panelWidth);
  const rawY = Math.round((py * d.touch.maxY) / panelHeight);
  return { kind, x, y, rawX, rawY };
}
