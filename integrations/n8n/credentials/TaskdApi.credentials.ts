import type {
	IAuthenticateGeneric,
	Icon,
	ICredentialTestRequest,
	ICredentialType,
	INodeProperties,
} from 'n8n-workflow';

export class TaskdApi implements ICredentialType {
	name = 'taskdApi';

	displayName = 'Taskd API';

	icon: Icon = { light: 'file:../icons/taskd.svg', dark: 'file:../icons/taskd.dark.svg' };

	documentationUrl = 'https://github.com/taskd/taskd/tree/main/integrations/n8n#credentials';

	properties: INodeProperties[] = [
		{
			displayName: 'Base URL',
			name: 'baseUrl',
			type: 'string',
			default: '',
			required: true,
			placeholder: 'http://127.0.0.1:8080',
			description: 'The address of the taskd workspace, without a path',
		},
		{
			displayName: 'Access Token',
			name: 'accessToken',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			required: true,
			placeholder: 'tt_...',
			description:
				'A personal access token with the permission "Can edit (read & write)" (taskd token create --permission write)',
		},
	];

	authenticate: IAuthenticateGeneric = {
		type: 'generic',
		properties: {
			headers: {
				Authorization: '=Bearer {{$credentials.accessToken}}',
			},
		},
	};

	test: ICredentialTestRequest = {
		request: {
			baseURL: '={{$credentials.baseUrl.replace(/\\/+$/, "")}}',
			url: '/v1/users/me',
		},
	};
}
