/** A view's browser entry imported with `?view`: its bundled HTML document (see bundle.ts). */
declare module '*?view' {
  const html: string;
  export default html;
}
