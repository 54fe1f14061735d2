import { EventEmitter } from 'node:events';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { describe, expect, it, vi } from 'vitest';
import { REAL_LATENCY_CLOCK } from '../../src/sandbox/faults.js';
import { atReplyTime } from '../../src/sandbox/http/respond.js';

const afterThisTurn = () => new Promise<void>((resolve) => setImmediate(resolve));
const timers = () => process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;

function requestWith(socket: (EventEmitter & { destroyed: boolean }) | undefined, dueInMs: number): FastifyRequest {
  return { raw: { socket }, sbLatencyClock: REAL_LATENCY_CLOCK, sbReplyAt: REAL_LATENCY_CLOCK.now() + dueInMs } as unknown as FastifyRequest;
}
const reply = {} as FastifyReply;
const liveSocket = () => Object.assign(new EventEmitter(), { destroyed: false });

describe('an answer held back for the injected latency', () => {
  it('goes at its time, leaving no listener on the connection', async () => {
    const socket = liveSocket();
    const answer = vi.fn();
    atReplyTime(requestWith(socket, 30), reply, answer);
    expect(answer).not.toHaveBeenCalled();
    expect(socket.listenerCount('close')).toBe(1);
    await vi.waitFor(() => expect(answer).toHaveBeenCalledOnce(), { timeout: 2_000, interval: 5 });
    expect(socket.listenerCount('close')).toBe(0);
  });

  it('is dropped, with its timer, when the client goes away first', () => {
    const socket = liveSocket();
    const before = timers();
    const answer = vi.fn();
    atReplyTime(requestWith(socket, 60_000), reply, answer);
    expect(timers()).toBe(before + 1);
    socket.emit('close');
    expect(timers()).toBe(before);
    expect(answer).not.toHaveBeenCalled();
  });

  it('sets no timer for a connection already gone, and adds no listener for an answer already due', async () => {
    const before = timers();
    const gone = Object.assign(liveSocket(), { destroyed: true });
    const answer = vi.fn();
    atReplyTime(requestWith(gone, 60_000), reply, answer);
    expect(timers()).toBe(before);
    expect(answer).not.toHaveBeenCalled();
    const socket = liveSocket();
    atReplyTime(requestWith(socket, -1), reply, answer);
    await afterThisTurn();
    expect(answer).toHaveBeenCalledOnce();
    expect(socket.listenerCount('close')).toBe(0);
  });
});

describe('answers due at once', () => {
  it('go out together once the turn is over, in the order they were given', async () => {
    const written: number[] = [];
    for (let i = 0; i < 3; i++) atReplyTime(requestWith(liveSocket(), 0), reply, () => written.push(i));
    // Nothing yet: the requests that arrived with these are handled first.
    expect(written).toEqual([]);
    await afterThisTurn();
    expect(written).toEqual([0, 1, 2]);
  });

  it('drop the connection of an answer that cannot be written, and still write the others', async () => {
    const broken = Object.assign(liveSocket(), { destroy: vi.fn() });
    const after = vi.fn();
    atReplyTime(requestWith(broken, 0), reply, () => {
      throw new Error('ERR_HTTP_HEADERS_SENT');
    });
    atReplyTime(requestWith(liveSocket(), 0), reply, after);
    await afterThisTurn();
    expect(broken.destroy).toHaveBeenCalledOnce();
    expect(after).toHaveBeenCalledOnce();
  });

  it('after their latency, likewise drop the connection of one that cannot be written', async () => {
    const broken = Object.assign(liveSocket(), { destroy: vi.fn() });
    atReplyTime(requestWith(broken, 5), reply, () => {
      throw new Error('ERR_HTTP_HEADERS_SENT');
    });
    await vi.waitFor(() => expect(broken.destroy).toHaveBeenCalledOnce(), { timeout: 2_000, interval: 5 });
  });
});
