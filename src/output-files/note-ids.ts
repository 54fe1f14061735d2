/**
 * Gives a streamed worksheet's notes their own block of VML shape ids.
 *
 * Why: exceljs 4.4 writes every sheet's vmlDrawing with the same `<o:idmap data="1"/>` and shape ids
 * restarting at `_x0000_s1025`. Excel allocates these ids workbook-wide in blocks of 1024 (ISO/IEC
 * 29500-1 §14.2.2.14), so two sheets with notes (Results and Fix) make Excel report damaged content
 * (exceljs PR #3070, not merged), and more than 1023 notes on one sheet overflow the single block.
 * Excel-faithful writers (xlsxwriter, libxlsxwriter) list every block a drawing uses, e.g. data="1,2".
 *
 * This reaches into two methods of exceljs's streaming comments writer (stable since 3.x; exceljs's last
 * release is 4.4.0). When they are not there, the caller is told so and leaves that sheet without notes.
 */

/** Shape ids per idmap block. */
export const VML_BLOCK_SIZE = 1024;

interface CommentsWriterInternals {
  commentsStream: { write(text: string): unknown };
  vmlStream: { write(text: string): unknown };
  _writeOpen(): void;
  _writeComment(comment: unknown, index: number): void;
}

function commentsWriterOf(worksheet: unknown): CommentsWriterInternals | null {
  const writer = (worksheet as { _sheetCommentsWriter?: Partial<CommentsWriterInternals> } | null)?._sheetCommentsWriter;
  if (!writer || typeof writer._writeOpen !== 'function' || typeof writer._writeComment !== 'function') return null;
  return writer as CommentsWriterInternals;
}

/** How many blocks `notes` notes need (shape ids start one past the block's first id). */
export function blocksFor(notes: number): number {
  return Math.max(1, Math.ceil((notes + 1) / VML_BLOCK_SIZE));
}

/**
 * Makes the sheet's VML drawing own blocks firstBlock .. firstBlock+blockCount-1, room for
 * blockCount*1024-1 notes. Call before the sheet's first note is written. Returns false when the
 * streaming writer's internals are not the expected ones (nothing changed then).
 */
export function reserveNoteIds(worksheet: unknown, firstBlock: number, blockCount: number): boolean {
  const writer = commentsWriterOf(worksheet);
  if (!writer) return false;
  const data = Array.from({ length: blockCount }, (_, i) => firstBlock + i).join(',');
  // exceljs numbers a sheet's shapes 1025 + index; shifting the index moves them into our block.
  const offset = (firstBlock - 1) * VML_BLOCK_SIZE;
  const writeComment = writer._writeComment;
  writer._writeComment = function (this: CommentsWriterInternals, comment: unknown, index: number): void {
    writeComment.call(this, comment, index + offset);
  };
  // The same preamble exceljs writes, with our blocks in o:idmap.
  writer._writeOpen = function (this: CommentsWriterInternals): void {
    this.commentsStream.write(
      '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>' +
        '<comments xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">' +
        '<authors><author>Author</author></authors>' +
        '<commentList>',
    );
    this.vmlStream.write(
      '<?xml version="1.0" encoding="UTF-8"?>' +
        '<xml xmlns:o="urn:schemas-microsoft-com:office:office" xmlns:v="urn:schemas-microsoft-com:vml" xmlns:x="urn:schemas-microsoft-com:office:excel">' +
        '<o:shapelayout v:ext="edit">' +
        `<o:idmap v:ext="edit" data="${data}" />` +
        '</o:shapelayout>' +
        '<v:shapetype id="_x0000_t202" coordsize="21600,21600" o:spt="202" path="m,l,21600r21600,l21600,xe">' +
        '<v:stroke joinstyle="miter" />' +
        '<v:path gradientshapeok="t" o:connecttype="rect" />' +
        '</v:shapetype>',
    );
  };
  return true;
}
