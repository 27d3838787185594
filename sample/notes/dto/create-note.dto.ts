import { ArrayMaxSize, IsArray, IsOptional, IsString, Length } from 'class-validator';

/** The arguments of create_note: a class-validator DTO is the tool's input schema. */
export class CreateNoteDto {
  @IsString()
  @Length(1, 100)
  title!: string;

  @IsString()
  @Length(0, 10_000)
  body!: string;

  @IsOptional()
  @IsArray()
  @ArrayMaxSize(10)
  @IsString({ each: true })
  tags?: string[];
}
