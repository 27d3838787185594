import { Injectable } from '@nestjs/common';
import { McpResource, McpResourceTemplate, McpArgs } from 'nest-mcp';
import { PNG_1X1_BASE64 } from './conformance.fixtures';

/** The resources and the resource template the conformance suite reads and subscribes to. */
@Injectable()
export class ConformanceResources {
  @McpResource({
    uri: 'test://static-text',
    name: 'static-text',
    title: 'Static Text Resource',
    description: 'A static text resource',
    mimeType: 'text/plain',
  })
  staticText() {
    return 'This is the content of the static text resource.';
  }

  @McpResource({
    uri: 'test://static-binary',
    name: 'static-binary',
    title: 'Static Binary Resource',
    description: 'A static binary resource (a PNG image)',
    mimeType: 'image/png',
  })
  staticBinary() {
    return Buffer.from(PNG_1X1_BASE64, 'base64');
  }

  @McpResource({
    uri: 'test://watched-resource',
    name: 'watched-resource',
    title: 'Watched Resource',
    description: 'A resource clients subscribe to',
    mimeType: 'text/plain',
  })
  watched() {
    return 'Watched resource content';
  }

  @McpResourceTemplate({
    uriTemplate: 'test://template/{id}/data',
    name: 'template',
    title: 'Resource Template',
    description: 'A resource template with parameter substitution',
    mimeType: 'application/json',
  })
  template(@McpArgs('id') id: string) {
    return { text: JSON.stringify({ id, templateTest: true, data: `Data for ID: ${id}` }) };
  }
}
