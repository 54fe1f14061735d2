/**
 * A reader that stops early (`order-batch validate x.csv | head -1`) closes the pipe under the CLI.
 * Node ignores SIGPIPE, so the next write into that pipe fails with EPIPE as an 'error' event on the
 * stream, which, with no one to hear it, ends the process with a stack trace. Heard here: what is
 * left to print has no reader and is dropped, the command runs to its end (an import still records
 * what it sent and writes its result files), and the process exits with the command's own code.
 */
export function dropOutputOnceClosed(stream: NodeJS.WriteStream): void {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    // ERR_STREAM_DESTROYED: a write after the pipe closed, on a stream that gave up on it.
    if (error.code === 'EPIPE' || error.code === 'ERR_STREAM_DESTROYED') return;
    throw error;
  });
}
