import { describe, expect, it } from 'vitest';
import { integerFromCell, moneyFromCell, parseIntegerText, parseMoneyText } from '../../src/orders/numbers.js';

describe('parseMoneyText', () => {
  it.each([
    ['12.5', 1250],
    ['12.50', 1250],
    ['0', 0],
    ['0.01', 1],
    ['.99', 99],
    ['5.', 500],
    ['$1,234.50', 123450],
    ['1234.50', 123450],
    ['$ 12', 1200],
    ['-0.01', -1],
    ['-$3', -300],
    ['$-3', -300],
    ['+7', 700],
    ['(12.00)', -1200],
    ['12.500', 1250],
    ['1,000,000', 100_000_000],
    ['-0', 0],
  ])('reads %j as %i cents', (text, cents) => {
    expect(parseMoneyText(text)).toBe(cents);
  });

  it.each([
    ['1.234,50', 'format'],
    ['12,34', 'format'],
    ['1,2345', 'format'],
    [',123', 'format'],
    ['12.34.56', 'format'],
    ['abc', 'format'],
    ['$', 'format'],
    ['.', 'format'],
    ['12 34', 'format'],
    ['€12', 'format'],
    ['(-12)', 'format'],
    ['12-', 'format'],
    ['1e3', 'format'],
    ['12.345', 'decimals'],
    ['0.001', 'decimals'],
    ['1000000000.01', 'too_large'],
    ['12345678901', 'too_large'],
  ])('refuses %j (%s)', (text, problem) => {
    expect(parseMoneyText(text)).toBe(problem);
  });

  it('adds 0.1 and 0.2 style amounts exactly, as cents', () => {
    const a = parseMoneyText('0.1') as number;
    const b = parseMoneyText('0.2') as number;
    expect(a + b).toBe(parseMoneyText('0.3'));
  });
});

describe('moneyFromCell', () => {
  it('reads xlsx numbers through the exact dollar conversion', () => {
    expect(moneyFromCell(0.1 + 0.2, '')).toBe(30);
    expect(moneyFromCell(29.99, '')).toBe(2999);
    expect(moneyFromCell(1.005, '')).toBe('decimals');
    expect(moneyFromCell(10.825, '')).toBe('decimals');
    expect(moneyFromCell(2e9, '')).toBe('too_large');
  });

  it('refuses booleans and dates', () => {
    expect(moneyFromCell(true, '')).toBe('format');
    expect(moneyFromCell(new Date(0), '')).toBe('format');
  });
});

describe('parseIntegerText', () => {
  it.each([
    ['2', 2],
    ['+2', 2],
    ['2.0', 2],
    ['2.00', 2],
    ['1,000', 1000],
    ['0', 0],
    ['-1', -1],
  ])('reads %j as %i', (text, value) => {
    expect(parseIntegerText(text)).toBe(value);
  });

  it.each([
    ['2.5', 'fraction'],
    ['0.1', 'fraction'],
    ['two', 'format'],
    ['2.', 'format'],
    ['1,00', 'format'],
    ['2x', 'format'],
    ['', 'format'],
    ['-', 'format'],
    ['99999999999999999999', 'too_large'],
  ])('refuses %j (%s)', (text, problem) => {
    expect(parseIntegerText(text)).toBe(problem);
  });

  it('reads whole xlsx numbers and refuses fractions', () => {
    expect(integerFromCell(3, '')).toBe(3);
    expect(integerFromCell(2.5, '')).toBe('fraction');
    expect(integerFromCell(true, '')).toBe('format');
  });
});
