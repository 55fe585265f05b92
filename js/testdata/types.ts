interface Point { x: number; y: number }
export const options = { iterations: 1 };
export default function (): void {
  const p: Point = { x: 1, y: 2 };
  globalThis.sum = p.x + p.y;
}
