// The rent-url template (web/src/rent.js): http(s) only, placeholders only
// in the path, query or fragment, every value URL-encoded.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readRentTemplate, rentHref } from '../../web/src/rent.js';

const VENDOR = 'https://vendor.example/order?gpu={gpu}&count={count}';

test('a vendor template becomes a link per pick, values encoded', () => {
  const { template, error } = readRentTemplate(`  ${VENDOR} `);
  assert.equal(error, undefined);
  assert.equal(rentHref(template, { gpu: 'h100-pcie', count: 2, name: 'H100 PCIe' }), 'https://vendor.example/order?gpu=h100-pcie&count=2');
  assert.equal(rentHref(template, { gpu: 'a&b=c#d', count: 1, name: 'x' }), 'https://vendor.example/order?gpu=a%26b%3Dc%23d&count=1');
  const named = readRentTemplate('http://vendor.example/cards/{gpu}/{name}').template;
  assert.equal(rentHref(named, { gpu: '../../admin', count: 1, name: 'RTX 4090 (24 GB)' }), 'http://vendor.example/cards/..%2F..%2Fadmin/RTX%204090%20(24%20GB)');
  assert.equal(rentHref(undefined, { gpu: 'x', count: 1, name: 'x' }), null);
});

test('anything but an absolute http(s) URL with placeholders past the host is refused', () => {
  const refused = [
    ['javascript:alert(1)//{gpu}', 'rentScheme'],
    ['data:text/html,{gpu}', 'rentScheme'],
    ['ftp://vendor.example/{gpu}', 'rentScheme'],
    ['/order?gpu={gpu}', 'rentUrl'],
    ['', 'rentUrl'],
    ['https://{gpu}.vendor.example/', 'rentHost'],
    ['https://vendor.example{gpu}/', 'rentHost'],
    ['{gpu}://vendor.example/', 'rentScheme'],
    ['https://user:pass@vendor.example/{gpu}', 'rentHost'],
    ['https://vendor.example/?x={price}', 'rentPlaceholder'],
    [`https://vendor.example/${'a'.repeat(3000)}`, 'rentLong'],
  ];
  for (const [raw, code] of refused) assert.equal(readRentTemplate(raw).error?.code, code, raw);
});
