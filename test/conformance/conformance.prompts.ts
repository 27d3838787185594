import { Injectable } from '@nestjs/common';
import { McpPrompt, McpArgs } from 'nest-mcp';
import { PNG_1X1_BASE64 } from './conformance.fixtures';

/** Values offered for `arg1` of `test_prompt_with_arguments`. */
const ARG1_VALUES = ['test', 'testing'];

/** The prompts the conformance suite lists, gets and completes. */
@Injectable()
export class ConformancePrompts {
  @McpPrompt({ title: 'Simple Test Prompt', description: 'A simple prompt without arguments' })
  test_simple_prompt() {
    return 'This is a simple prompt for testing.';
  }

  @McpPrompt({
    title: 'Prompt With Arguments',
    description: 'A prompt with required arguments',
    arguments: [
      {
        name: 'arg1',
        description: 'First test argument',
        required: true,
        complete: (value) => ARG1_VALUES.filter((candidate) => candidate.startsWith(value)),
      },
      { name: 'arg2', description: 'Second test argument', required: true },
    ],
  })
  test_prompt_with_arguments(@McpArgs() args: { arg1: string; arg2: string }) {
    return `Prompt with arguments: arg1='${args.arg1}', arg2='${args.arg2}'`;
  }

  @McpPrompt({
    title: 'Prompt With Embedded Resource',
    description: 'A prompt that embeds a resource',
    arguments: [{ name: 'resourceUri', description: 'URI of the resource to embed', required: true }],
  })
  test_prompt_with_embedded_resource(@McpArgs('resourceUri') resourceUri: string) {
    return {
      messages: [
        {
          role: 'user' as const,
          content: {
            type: 'resource' as const,
            resource: { uri: resourceUri, mimeType: 'text/plain', text: 'Embedded resource content for testing.' },
          },
        },
        {
          role: 'user' as const,
          content: { type: 'text' as const, text: 'Please process the embedded resource above.' },
        },
      ],
    };
  }

  @McpPrompt({ title: 'Prompt With Image', description: 'A prompt that includes an image' })
  test_prompt_with_image() {
    return {
      messages: [
        { role: 'user' as const, content: { type: 'image' as const, data: PNG_1X1_BASE64, mimeType: 'image/png' } },
        { role: 'user' as const, content: { type: 'text' as const, text: 'Please analyze the image above.' } },
      ],
    };
  }
}
