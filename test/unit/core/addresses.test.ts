import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isIpLiteral, isMetadataAddress, isMetadataHost } from '../../../src/core/addresses';

test('issue 8 §9 metadata addresses: link-local, cloud metadata and their IPv6-mapped forms are recognised', () => {
  const metadata = [
    '169.254.169.254',
    '169.254.0.1',
    '100.100.100.200',
    'fd00:ec2::254',
    'FD00:EC2:0:0:0:0:0:254',
    'fe80::1',
    'febf::ffff',
    'fe80::1%eth0',
    '::ffff:169.254.169.254',
    '::ffff:a9fe:a9fe',
    '64:ff9b::169.254.1.1',
  ];
  for (const address of metadata) assert.equal(isMetadataAddress(address), true, address);
  const ordinary = [
    '127.0.0.1',
    '10.0.0.1',
    '169.253.255.255',
    '100.100.100.201',
    '::1',
    'fec0::1',
    'fd00:ec2::253',
    '2001:db8::1',
    '::ffff:127.0.0.1',
    '1:2:3:4:5:6:7:8:9',
    'not an address',
  ];
  for (const address of ordinary) assert.equal(isMetadataAddress(address), false, address);
});

test('issue 8 §9 metadata hosts: names and bracketed literals as URLs spell them', () => {
  assert.equal(isMetadataHost('metadata.google.internal'), true);
  assert.equal(isMetadataHost('METADATA.google.internal.'), true);
  assert.equal(isMetadataHost('[fd00:ec2::254]'), true);
  assert.equal(isMetadataHost('example.com'), false);
  assert.equal(isIpLiteral('[::1]'), true);
  assert.equal(isIpLiteral('127.0.0.1'), true);
  assert.equal(isIpLiteral('localhost'), false);
});
