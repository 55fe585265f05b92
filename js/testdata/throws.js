export default function () {
  inner();
}
function inner() {
  throw new Error('boom');
}
